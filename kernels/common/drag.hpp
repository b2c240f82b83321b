#pragma once
// Air drag on a vertex of a slender fibre (resistive force theory: the air resists motion across
// the fibre more than along it), the one formula every model and the references use:
//   f = -D (v - wind),  D = ℓ [ζ⊥ (I - t tᵀ) + ζ∥ t tᵀ],
// t the normalised sum of the unit tangents of the edges at the vertex, ℓ its share of the rest
// length (half of each edge's). Hair in air: docs/architecture.md, "Air drag".
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

// `before`, `after`: unit tangents of the edges before and after the vertex (zero where there
// is none), `rest_before`, `rest_after` their rest lengths (m; zero where none); ζ⊥, ζ∥ in N s/m².
template <class T>
HS_HD Matrix3<T> drag_matrix(const Vector3<T>& before, const Vector3<T>& after, T rest_before,
                             T rest_after, T drag_normal, T drag_tangent) {
  const Vector3<T> sum = before + after;
  const T sum_length = norm(sum);
  const Vector3<T> t = sum_length > T(0) ? sum / sum_length : Vector3<T>{};
  const T share = T(0.5) * (rest_before + rest_after);
  const Matrix3<T> along = outer(t, t);
  return share * (drag_normal * (identity3<T>() - along) + drag_tangent * along);
}

}  // namespace hairsim::kernels
