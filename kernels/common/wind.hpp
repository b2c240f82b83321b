#pragma once
// Wind that varies in space and time: a mean velocity plus gusts, a sum of travelling sinusoidal
// modes, w(x, t) = mean + Σ_k a_k sin(κ_k · x - ω_k t + φ_k) (a_k: amplitude vector, m/s;
// κ_k: wave vector, rad/m; ω_k: angular frequency, rad/s). Smooth, divergence not enforced (it
// drives drag, not a fluid), cheap to evaluate per vertex on host and device; make_gusts() draws
// the modes from a few physical parameters. Shared by the reference and the batched kernels.
#include <cmath>
#include <cstdint>

#include "common/constants.hpp"
#include "common/hd.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

constexpr int kMaxWindModes = 8;

template <class T>
struct WindField {
  Vector3<T> mean;  // m/s
  int modes = 0;
  Vector3<T> amplitude[kMaxWindModes];  // m/s
  Vector3<T> wave[kMaxWindModes];       // rad/m
  T angular_frequency[kMaxWindModes] = {};
  T phase[kMaxWindModes] = {};

  HS_HD Vector3<T> at(const Vector3<T>& x, T t) const {
    Vector3<T> w = mean;
    for (int k = 0; k < modes; ++k)
      w += std::sin(dot(wave[k], x) - angular_frequency[k] * t + phase[k]) * amplitude[k];
    return w;
  }
  HS_HD bool still() const {
    return modes == 0 && mean.x == T(0) && mean.y == T(0) && mean.z == T(0);
  }
};

template <class To, class From>
WindField<To> convert(const WindField<From>& w) {
  auto v = [](const Vector3<From>& a) { return Vector3<To>{To(a.x), To(a.y), To(a.z)}; };
  WindField<To> out;
  out.mean = v(w.mean);
  out.modes = w.modes;
  for (int k = 0; k < w.modes; ++k) {
    out.amplitude[k] = v(w.amplitude[k]);
    out.wave[k] = v(w.wave[k]);
    out.angular_frequency[k] = To(w.angular_frequency[k]);
    out.phase[k] = To(w.phase[k]);
  }
  return out;
}

// Gusts around a mean wind: `modes` modes whose amplitudes share the gust strength `rms` (m/s,
// the RMS of the fluctuation: a_k = rms sqrt(2 / modes), along the mean wind or, when still,
// along random directions, with a random sideways part of a third), whose frequencies spread
// over [0.5, 1.5] x `frequency` (Hz), and whose wave vectors have length 2π / `scale` (m, the
// gusts' size) in random directions. Deterministic in `seed` (splitmix64).
inline WindField<double> make_gusts(const Vector3<double>& mean, double rms, double frequency,
                                    double scale, int modes, std::uint64_t seed) {
  std::uint64_t state = seed;
  auto uniform = [&]() {  // splitmix64 -> [0, 1)
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return double((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  auto random_unit = [&]() {
    const double z = 2 * uniform() - 1, a = 2 * pi<double>() * uniform();
    const double r = std::sqrt(1 - z * z);
    return Vector3<double>{r * std::cos(a), r * std::sin(a), z};
  };
  WindField<double> w;
  w.mean = mean;
  w.modes = modes < 0 ? 0 : modes > kMaxWindModes ? kMaxWindModes : modes;
  if (!(rms > 0)) w.modes = 0;
  const double speed = norm(mean);
  for (int k = 0; k < w.modes; ++k) {
    const Vector3<double> along = speed > 0 ? mean / speed : random_unit();
    const Vector3<double> side = random_unit();
    Vector3<double> d = along + (1.0 / 3) * (side - dot(side, along) * along);
    d = d / norm(d);
    w.amplitude[k] = (rms * std::sqrt(2.0 / w.modes)) * d;
    w.wave[k] = (2 * pi<double>() / scale) * random_unit();
    w.angular_frequency[k] = 2 * pi<double>() * frequency * (0.5 + uniform());
    w.phase[k] = 2 * pi<double>() * uniform();
  }
  return w;
}

}  // namespace hairsim::kernels
