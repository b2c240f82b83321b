#include "reference/cosserat/cosserat_solver.hpp"

#include <cmath>

#include "common/block_thomas.hpp"
#include "hairsim/error.hpp"

namespace hairsim::cosserat {

XVector apply_j(const Kinematics& k, const VecX& v) {
  const int segments = static_cast<int>(k.q.size());
  XVector y;
  y.p.resize(segments + 1);
  y.q.resize(segments);
  y.p[0] = v.head<3>();
  for (int i = 0; i < segments; ++i) {
    const Vec3 vi = v.segment<3>(3 + 3 * i);
    y.p[i + 1] = y.p[i] + k.dx[i] * vi;  // the prefix sum of eq. (18)
    y.q[i] = k.dq[i] * vi;
  }
  return y;
}

VecX apply_jt(const Kinematics& k, const XVector& y) {
  const int segments = static_cast<int>(k.q.size());
  VecX out(3 * (segments + 1));
  Vec3 beyond = Vec3::Zero();  // Σ_{j>i} y_p,j, the suffix sum
  for (int i = segments - 1; i >= 0; --i) {
    beyond += y.p[i + 1];
    out.segment<3>(3 + 3 * i) = k.dx[i].transpose() * beyond + k.dq[i].transpose() * y.q[i];
  }
  out.head<3>() = beyond + y.p[0];
  return out;
}

XVector apply_h(const HessianX& h, const RestShape& rest, const XVector& y) {
  const int n = rest.vertex_count();
  XVector out;
  out.p.resize(n);
  out.q.resize(n - 1);
  for (int j = 0; j < n; ++j) out.p[j] = h.h[j] * y.p[j];
  for (std::size_t j = 0; j < h.vertex_block.size(); ++j) out.p[j] += h.vertex_block[j] * y.p[j];
  for (int i = 0; i + 1 < n; ++i) out.q[i] = h.mq[i] * y.q[i];
  for (int v = 1; v + 1 < n; ++v) {  // K_q = Σ_v l̄_v G_vᵀ K G_v
    const Darboux& g = h.bend[v];
    const Vec3 w =
        rest.voronoi[v] * rest.stiffness.asDiagonal() * (g.d_prev * y.q[v - 1] + g.d_next * y.q[v]);
    out.q[v - 1] += g.d_prev.transpose() * w;
    out.q[v] += g.d_next.transpose() * w;
  }
  return out;
}

NewtonSystem::NewtonSystem(const Kinematics& k, const HessianX& h, const RestShape& rest,
                           std::vector<bool> fixed_blocks)
    : k_(k), h_(h), rest_(rest), fixed_(std::move(fixed_blocks)) {}

void NewtonSystem::mask(VecX& v) const {
  for (std::size_t b = 0; b < fixed_.size(); ++b)
    if (fixed_[b]) v.segment<3>(3 * static_cast<int>(b)).setZero();
}

VecX NewtonSystem::apply(const VecX& v) const {
  VecX free = v;
  mask(free);
  VecX out = apply_jt(k_, apply_h(h_, rest_, apply_j(k_, free)));
  for (std::size_t i = 0; i < h_.chain.size(); ++i)
    out.segment<3>(3 + 3 * int(i)) += h_.chain[i] * free.segment<3>(3 + 3 * int(i));
  mask(out);
  return out + (v - free);  // the identity on the fixed blocks
}

PreconditionerKind parse_preconditioner(const std::string& name, const std::string& where) {
  if (name == "diagonal") return PreconditionerKind::diagonal;
  if (name == "block_diagonal") return PreconditionerKind::block_diagonal;
  if (name == "hybrid") return PreconditionerKind::hybrid;
  if (name == "exact") return PreconditionerKind::exact;
  throw Error(where,
              "must be 'diagonal', 'block_diagonal', 'hybrid' or 'exact' (got '" + name + "')");
}

const char* to_string(PreconditionerKind kind) {
  switch (kind) {
    case PreconditionerKind::diagonal:
      return "diagonal";
    case PreconditionerKind::block_diagonal:
      return "block_diagonal";
    case PreconditionerKind::exact:
      return "exact";
    case PreconditionerKind::hybrid:
      break;
  }
  return "hybrid";
}

BlockTridiagonal build_preconditioner(const NewtonSystem& system, PreconditionerKind kind) {
  const Kinematics& k = system.kin();
  const HessianX& h = system.hess();
  const RestShape& rest = system.rest();
  const int n = rest.vertex_count(), segments = n - 1;
  BlockTridiagonal p;
  p.diag.assign(n, Mat3::Zero());
  p.upper.assign(n, Mat3::Zero());
  // Translational part, diagonal blocks only (eqs. 23, 28): Σ_j H_j for the root and
  // J^iᵀ (Σ_{j>i} H_j) J^i for segment i, H_j = h_j I (+ C_j / Δt with resistance).
  auto block = [&](int j) -> Mat3 {
    Mat3 b = h.h[j] * Mat3::Identity();
    if (!h.vertex_block.empty()) b += h.vertex_block[j];
    return b;
  };
  Mat3 beyond = Mat3::Zero();
  for (int i = segments - 1; i >= 0; --i) {
    beyond += block(i + 1);
    p.diag[1 + i] = k.dx[i].transpose() * beyond * k.dx[i];
  }
  p.diag[0] = beyond + block(0);
  // Rotational part J_{q,ω}ᵀ H_q J_{q,ω} (eq. 27 with block-diagonal J_{q,ω}): block
  // tridiagonal, M_q / Δt² on the diagonal, K_q's blocks on and beside it.
  for (int i = 0; i < segments; ++i) p.diag[1 + i] += k.dq[i].transpose() * h.mq[i] * k.dq[i];
  for (std::size_t i = 0; i < h.chain.size(); ++i) p.diag[1 + i] += h.chain[i];
  for (int v = 1; v + 1 < n; ++v) {
    const Darboux& g = h.bend[v];
    const Mat3 kw = rest.voronoi[v] * rest.stiffness.asDiagonal();
    const Eigen::Matrix3d a = g.d_prev * k.dq[v - 1], b = g.d_next * k.dq[v];
    p.diag[v] += a.transpose() * kw * a;      // segment v-1 is block v
    p.diag[v + 1] += b.transpose() * kw * b;  // segment v is block v+1
    if (kind == PreconditionerKind::hybrid) p.upper[v] = a.transpose() * kw * b;
  }
  if (kind == PreconditionerKind::diagonal)
    for (Mat3& d : p.diag) d = Mat3(d.diagonal().asDiagonal());
  const std::vector<bool>& fixed = system.fixed();
  for (int b = 0; b < n; ++b) {
    if (!fixed[b]) continue;
    p.diag[b] = Mat3::Identity();
    p.upper[b].setZero();
    if (b > 0) p.upper[b - 1].setZero();
  }
  return p;
}

VecX apply_inverse(const BlockTridiagonal& p, const VecX& r) {
  const int n = static_cast<int>(p.diag.size());
  // Row-major 3 x 3 blocks, as kernels::block_thomas_solve reads them.
  std::vector<double> diag(9 * n), upper(9 * n), scratch(9 * n);
  for (int b = 0; b < n; ++b)
    for (int row = 0; row < 3; ++row)
      for (int col = 0; col < 3; ++col) {
        diag[9 * b + 3 * row + col] = p.diag[b](row, col);
        upper[9 * b + 3 * row + col] = p.upper[b](row, col);
      }
  VecX x(r.size());
  const kernels::LowerFromUpper<3, const double*> lower{upper.data()};
  if (!kernels::block_thomas_solve<double, 3>(n, lower, diag.data(), upper.data(), r.data(),
                                              x.data(), scratch.data()))
    throw RunFailure("cosserat preconditioner", "singular block (non-finite state?)");
  return x;
}

Preconditioner::Preconditioner(const NewtonSystem& system, PreconditionerKind kind) : kind_(kind) {
  if (kind != PreconditionerKind::exact) {
    blocks_ = build_preconditioner(system, kind);
    return;
  }
  const int size = 3 * system.rest().vertex_count();
  Eigen::MatrixXd a(size, size);
  VecX unit = VecX::Zero(size);
  for (int c = 0; c < size; ++c) {
    unit[c] = 1;
    a.col(c) = system.apply(unit);
    unit[c] = 0;
  }
  exact_.compute(0.5 * (a + a.transpose()));  // symmetric up to the products' round-off
  if (exact_.info() != Eigen::Success)
    throw RunFailure("cosserat preconditioner", "Newton matrix not positive definite");
}

VecX Preconditioner::apply_inverse(const VecX& r) const {
  if (kind_ != PreconditionerKind::exact) return cosserat::apply_inverse(blocks_, r);
  return exact_.solve(r);
}

PcgResult pcg(const std::function<VecX(const VecX&)>& apply_a,
              const std::function<VecX(const VecX&)>& apply_p_inverse, const VecX& rhs, VecX& x,
              const PcgSettings& settings) {
  const int max_iterations =
      settings.max_iterations > 0 ? settings.max_iterations : 2 * static_cast<int>(rhs.size());
  const double stop = std::max(
      std::min(settings.tolerance, settings.relative_tolerance * rhs.norm()), 1e-15 * rhs.norm());
  PcgResult result;
  VecX r = rhs - apply_a(x);
  result.residual = r.norm();
  if (result.residual < stop) {
    result.converged = true;
    return result;
  }
  VecX z = apply_p_inverse(r);
  VecX d = z;
  double rz = r.dot(z);
  while (result.iterations < max_iterations) {
    const VecX ad = apply_a(d);
    const double dad = d.dot(ad);
    if (!(dad > 0)) break;  // A is positive definite: only breakdown or NaN gets here
    const double alpha = rz / dad;
    x += alpha * d;
    r -= alpha * ad;
    ++result.iterations;
    result.residual = r.norm();
    if (result.residual < stop) {
      result.converged = true;
      break;
    }
    z = apply_p_inverse(r);
    const double rz_next = r.dot(z);
    d = z + (rz_next / rz) * d;
    rz = rz_next;
  }
  return result;
}

}  // namespace hairsim::cosserat
