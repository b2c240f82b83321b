#pragma once
// Prefix and suffix sums along one strand, sequential: the Cosserat step's (eq. 7's chain of
// vertices, J v and Jᵀ y by eq. 18, the preconditioner's "beyond" sums of eqs. (27)-(28)), which
// still runs a thread per strand. The cooperative form is common/lanes.hpp's scan_rows /
// reverse_scan_rows (the same fold on one lane, Hillis-Steele across several): when Cosserat
// moves onto lanes its calls move there and this header goes.
#include "common/hd.hpp"

namespace hairsim::kernels {

// For i = 0, 1, ..., n - 1: sum += term(i), then emit(i, sum). Starts from `sum`; returns the
// total.
template <class Sum, class Term, class Emit>
HS_HD Sum inclusive_scan(int n, Sum sum, Term&& term, Emit&& emit) {
  for (int i = 0; i < n; ++i) {
    sum += term(i);
    emit(i, sum);
  }
  return sum;
}

// The same from the end, i = n - 1 down to 0 (suffix sums).
template <class Sum, class Term, class Emit>
HS_HD Sum reverse_inclusive_scan(int n, Sum sum, Term&& term, Emit&& emit) {
  for (int i = n - 1; i >= 0; --i) {
    sum += term(i);
    emit(i, sum);
  }
  return sum;
}

}  // namespace hairsim::kernels
