#!/usr/bin/env python3
"""Greenhill's heavy column (Greenhill 1881): a rod clamped upright at its base, free at its top,
under its own weight q per unit length. The elastica (arc length s from the base, theta the angle
from the vertical), EI theta'' = -q (L - s) sin(theta), theta(0) = 0, theta'(L) = 0, solved here
by shooting from the top (theta(L) = theta_tip, theta'(L) = 0) down to the base for theta(0) = 0,
with a classical Runge-Kutta march of 20,000 steps, and bisection on theta_tip. It prints:

- the critical load lambda_c = q L^3 / EI (the linearised problem's first eigenvalue: the load at
  which theta_tip -> 0 admits a solution), Greenhill's 7.8373 (9/4 j^2, j the first zero of
  J_{-1/3});
- at lambda = 1.05 lambda_c the post-buckled tip's deflection from the base, x_tip / L and
  y_tip / L (the values tests/validation use; Wang's tables give the same curve).

Independent of hairsim: pure Python, no library. Run: python3 tests/data/greenhill_column.py
"""
import math

STEPS = 20000


def march(lam, theta_tip):
    """theta, theta' and the tip's offsets from the base, integrating from s = L to s = 0
    (L = 1, EI = 1, q = lam): returns theta(0), x_tip, y_tip."""
    h = -1.0 / STEPS

    def f(s, y):
        theta, dtheta, x, z = y
        return (dtheta, -lam * (1.0 - s) * math.sin(theta), math.sin(theta), math.cos(theta))

    s, y = 1.0, (theta_tip, 0.0, 0.0, 0.0)
    for _ in range(STEPS):
        k1 = f(s, y)
        k2 = f(s + h / 2, tuple(a + h / 2 * b for a, b in zip(y, k1)))
        k3 = f(s + h / 2, tuple(a + h / 2 * b for a, b in zip(y, k2)))
        k4 = f(s + h, tuple(a + h * b for a, b in zip(y, k3)))
        y = tuple(a + h / 6 * (b1 + 2 * b2 + 2 * b3 + b4)
                  for a, b1, b2, b3, b4 in zip(y, k1, k2, k3, k4))
        s += h
    # The offsets were integrated from the tip down: x, z hold -(tip - base).
    return y[0], -y[2], -y[3]


def bisect(fun, a, b, iterations=100):
    fa = fun(a)
    for _ in range(iterations):
        m = 0.5 * (a + b)
        fm = fun(m)
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b = m
    return 0.5 * (a + b)


def critical_load():
    # Linearised: theta(0) / theta_tip for a tiny theta_tip changes sign at lambda_c.
    return bisect(lambda lam: march(lam, 1e-8)[0], 5.0, 10.0, 60)


def main():
    lam_c = critical_load()
    print(f"critical load q L^3 / EI = {lam_c:.6f} (Greenhill: 7.8373)")
    for factor in (1.05,):
        lam = factor * lam_c
        theta_tip = bisect(lambda t: march(lam, t)[0], 1e-3, 2.0)
        _, x, y = march(lam, theta_tip)
        print(f"{factor} x critical: theta_tip = {theta_tip:.6f} rad, "
              f"tip x / L = {x:.6f}, y / L = {y:.6f}")


if __name__ == "__main__":
    main()
