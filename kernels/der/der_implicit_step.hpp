#pragma once
// DER's linearly implicit Euler step of one strand (the reference's der_implicit.hpp): stretching
// as a stiff energy, Gauss-Newton bending, the block-tridiagonal system of vertex pairs solved by
// block-tridiagonal solve in double on the strand's lanes.
#include "common/lane_tridiagonal.hpp"
#include "der/der_symplectic_step.hpp"

namespace hairsim::kernels::der {

// The implicit step's linear system of one strand, in place in the batch: vertices paired into
// 6 x 6 blocks (vertex i in block i / 2), which makes the bending stencil's coupling of vertices
// i - 1 and i + 1 block-tridiagonal. Symmetric: only the diagonal and super-diagonal blocks are
// stored (the solve reads the sub-diagonal through LowerFromUpper).
// Entries are double (DerBatchArrays::system_diag says why); blocks arrive in T.
template <class T>
struct PairedBlockSystem {
  Strided<double> diag, upper, rhs;

  // Block (vertex r, vertex c) += m; an entry below the block diagonal is skipped (its
  // transpose, added with it, is the one stored).
  HS_HD void add(int r, int c, const Matrix3<T>& m) const {
    const int br = r / 2, bc = c / 2;
    if (bc < br) return;
    const Strided<double>& blocks = bc == br ? diag : upper;
    const int base = 36 * br + 18 * (r % 2) + 3 * (c % 2);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) blocks[base + 6 * i + j] += double(m(i, j));
  }
  HS_HD void add_rhs(int r, const Vector3<T>& v) const {
    rhs[3 * r] += double(v.x), rhs[3 * r + 1] += double(v.y), rhs[3 * r + 2] += double(v.z);
  }
  HS_HD Vector3<T> solution(int r) const {
    return {T(rhs[3 * r]), T(rhs[3 * r + 1]), T(rhs[3 * r + 2])};
  }
};

// Stretching, ½ EA Σ (|e^j| - |ē^j|)² / |ē^j| (the reference's der_implicit.cpp): its force
// added to a.force; with `hessian`, its Hessian blocks handed to add(r, c, block) instead:
// EA/|ē| [d̂d̂ᵀ + max(0, 1 - |ē|/|e|)(I - d̂d̂ᵀ)] per edge (the compressed part dropped: PSD).
template <class T, class G, class Add>
HS_HD void stretching_terms(const Strand<T, G>& st, bool hessian, Add&& add) {
  const DerBatchArrays<T>& a = st.a;
  const T ea = st.strand_value(a.stretching);
  const StridedVector3<T> x = st.vectors(a.position), f = st.vectors(a.force);
  const Strided<T> rest = st.per_row(a.edge_length);
  scatter_rows(st.g, st.edges(), 1, [&](int j) {  // edge j adds into vertices j and j + 1
    const Vector3<T> d = x.get(j + 1) - x.get(j);
    if (!hessian) {
      const Vector3<T> g = stretching_gradient(d, T(rest[j]), ea);
      f.set(j, f.get(j) + g);
      f.set(j + 1, f.get(j + 1) - g);
      return;
    }
    const Matrix3<T> k = stretching_hessian(d, T(rest[j]), ea);
    const Matrix3<T> minus_k = T(-1) * k;
    add(j, j, k), add(j + 1, j + 1, k), add(j, j + 1, minus_k), add(j + 1, j, minus_k);
  });
}

// Gauss-Newton bending Hessian Σ_i J_iᵀ A_i J_i, J_i = ∂(κb)_i/∂x over the stencil (i-1, i, i+1)
// (the exact Jacobian of eq. 1), A_i = (α / l̄_i) Σ_{j=i-1,i} (I - t^j t^jᵀ): the bending form
// Pᵀ B P with P = [m2ᵀ; -m1ᵀ] and B = α Id (eq. 2 with the frames held), as in the reference.
template <class T, class G, class Add>
HS_HD void bending_hessian(const Strand<T, G>& st, Add&& add) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending);
  const StridedVector3<T> x = st.vectors(a.position), t = st.vectors(a.tangent),
                          kb = st.vectors(a.kb);
  const Strided<T> l = st.per_row(a.voronoi_length);
  scatter_rows(st.g, st.edges(), 1, [&](int i) {  // vertex i's stencil: i - 1, i, i + 1
    if (i == 0) return;
    const Vector3<T> ea = x.get(i) - x.get(i - 1), eb = x.get(i + 1) - x.get(i), b = kb.get(i);
    const CurvatureBinormalJacobian<T> jac = curvature_binormal_jacobian(ea, eb, b);
    const Matrix3<T>&ja = jac.prev_edge, &jb = jac.next_edge;
    const Vector3<T> t0 = t.get(i - 1), t1 = t.get(i);
    const Matrix3<T> form =
        (alpha / l[i]) * (T(2) * identity3<T>() - outer(t0, t0) - outer(t1, t1));
    const Matrix3<T> d[3] = {T(-1) * ja, ja - jb, jb};  // ∂κb/∂(x_{i-1}, x_i, x_{i+1})
    for (int m = 0; m < 3; ++m) {
      const Matrix3<T> dt_form = transpose(d[m]) * form;
      for (int n = 0; n < 3; ++n) add(i - 1 + m, i - 1 + n, dt_form * d[n]);
    }
  });
}

// One linearly implicit backward Euler step of a hair strand (the reference's
// step_linearly_implicit, der_implicit.hpp, with the head's root clamp and colliders):
//   (M (1 + h c) + h D + h² H) v' = M v + h (F + M g + D w),   x' = x + h v',
// F the elastic forces of the quasistatic rod and stretching, D air drag (drag_matrix, taken
// implicitly), H the PSD Hessian approximation (stretching, Gauss-Newton bending). The root
// vertices move to the head pose: their velocities are known and go to the right-hand side.
// Solved on the 6 x 6 vertex-pair blocks. Then constrain_positions as
// p.implicit_lengths says (hair: a strain limit), then finish_step.
template <class T, class G>
HS_HD HS_FORCE_INLINE StepCounts implicit_step(const Strand<T, G>& st,
                                               const DerStepParameters<T>& p) {
  const DerBatchArrays<T>& a = st.a;
  const int nv = a.vertices, pairs = a.vertex_pairs();
  const StridedVector3<T> x = st.vectors(a.position), v = st.vectors(a.velocity),
                          f = st.vectors(a.force);
  const Strided<T> mass = st.per_row(a.mass);
  const PairedBlockSystem<T> system{st.per_row(a.system_diag), st.per_row(a.system_upper),
                                    st.per_row(a.system_rhs)};
  compute_frames(st);
  elastic_forces(st);
  stretching_terms(st, false, [](int, int, const Matrix3<T>&) {});
  const Vector3<T> old_t0 = st.vectors(a.tangent).get(0);
  const bool drag = p.drag_normal != T(0) || p.drag_tangent != T(0);
  for_each_row(st.g, pairs, [&](int pair) {
    for (int k = 0; k < 36; ++k) system.diag[36 * pair + k] = system.upper[36 * pair + k] = 0.0;
    for (int k = 0; k < 6; ++k) system.rhs[6 * pair + k] = 0.0;
  });
  // The roots' velocities are known (every lane computes them: the Hessian's root columns move
  // to the right-hand side below). Kept in two named values, not indexed at run time (a runtime
  // index into a.root_rest put the whole tile view on the device's stack).
  const Vector3<T> root_velocity[2] = {(root_target(st, p.head, 0) - x.get(0)) / p.dt,
                                       (root_target(st, p.head, 1) - x.get(1)) / p.dt};
  // Rows: identity for the root vertices (velocity known) and the padding vertex of an odd
  // count; M (1 + h c) + h D for the others. Each vertex writes only its own diagonal block.
  for_each_row(st.g, 2 * pairs, [&](int i) {
    if (i < 2 || i >= nv) {
      system.add(i, i, identity3<T>());
      if (i < 2) system.add_rhs(i, i == 0 ? root_velocity[0] : root_velocity[1]);
      return;
    }
    Matrix3<T> lhs = (mass[i] * (T(1) + p.dt * p.damping)) * identity3<T>();
    Vector3<T> rhs = mass[i] * v.get(i) + p.dt * (f.get(i) + mass[i] * p.gravity);
    if (drag) {
      const Matrix3<T> d = drag_matrix(st, p, i);
      lhs += p.dt * d;
      rhs += p.dt * (d * p.wind.at(x.get(i), p.time));
    }
    system.add(i, i, lhs);
    system.add_rhs(i, rhs);
  });
  // h² H on the free rows; its columns of root vertices times their known velocities move to
  // the right-hand side.
  const T h2 = p.dt * p.dt;
  auto add_hessian = [&](int r, int c, const Matrix3<T>& block) {
    if (r < 2) return;
    if (c < 2)  // a select, not a runtime index: root_velocity stays in registers
      system.add_rhs(r, -h2 * (block * (c == 0 ? root_velocity[0] : root_velocity[1])));
    else
      system.add(r, c, h2 * block);
  };
  stretching_terms(st, true, add_hessian);
  bending_hessian(st, add_hessian);
  // On the group's first lane: the 6 x 6 double blocks are too large to hold on every lane of a
  // warp (LaneSolve says what the compiler reported); the lanes' hybrid is the other choice.
  const LowerFromUpper<6, Strided<double>> lower{system.upper};
  const bool solved = lane_block_thomas_solve<double, 6>(
      st.g, pairs, lower, system.diag, system.upper, system.rhs, system.rhs, LaneSolve::first_lane);
  const StridedVector3<T> old = st.vectors(a.previous_position);
  for_each_row(st.g, nv, [&](int i) {
    old.set(i, x.get(i));
    if (i < 2) {  // the roots: their known velocities, on the head
      v.set(i, i == 0 ? root_velocity[0] : root_velocity[1]);
      x.set(i,
            i == 0 ? root_target(st, p.head, 0) : root_target(st, p.head, 1));  // constant indices
      return;
    }
    const Vector3<T> vi = solved ? system.solution(i) : v.get(i);
    v.set(i, vi);
    x.set(i, x.get(i) + p.dt * vi);
  });
  StepCounts counts;
  counts.solver_failures = solved ? 0 : 1;
  constrain_positions(st, p, counts, p.implicit_lengths);
  counts.twist_iterations = finish_step(st, p, old_t0);
  return counts;
}

}  // namespace hairsim::kernels::der
