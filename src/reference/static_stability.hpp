#pragma once
// Whether a static equilibrium found by relaxation is stable, for the models whose static mode
// relaxes (DER's damped dynamics, Cosserat's proximal steps). A relaxation settles on any
// equilibrium it starts on, a saddle too: a straight column above its buckling load stays
// straight, its forces having no component along the buckling mode. So the settled rod is
// kicked (`kick(round)`: a small random disturbance of about `kick_m`, the model's own) and
// settled again (`settle()`): a stable equilibrium takes it back, within 100 kicks; an unstable
// one is left for the equilibrium the rod settles in, which is checked in turn (at most
// kMaxRounds rounds). The reduced models know their Hessian and report its smallest eigenvalue
// instead (reference/newton_statics.hpp).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "hairsim/strands.hpp"

namespace hairsim::reference {

struct StabilityCheck {
  bool stable = true;
  double kick_m = 0;      // the disturbance's size (m)
  double moved_m = 0;     // how far the last settle took the rod from where it was (m)
  int unstable_left = 0;  // unstable equilibria the check left
};

template <class Kick, class Settle, class Positions>
StabilityCheck check_stability(double kick_m, Kick&& kick, Settle&& settle, Positions&& positions) {
  constexpr int kMaxRounds = 3;
  StabilityCheck check;
  check.kick_m = kick_m;
  for (int round = 1; round <= kMaxRounds; ++round) {
    const std::vector<Vec3> settled = positions();
    kick(round);
    settle();
    const std::vector<Vec3> now = positions();
    check.moved_m = 0;
    for (std::size_t i = 0; i < settled.size(); ++i)
      check.moved_m = std::max(check.moved_m, (now[i] - settled[i]).norm());
    check.stable = check.moved_m <= 100 * kick_m;
    if (check.stable) break;
    ++check.unstable_left;
  }
  return check;
}

// The summary's "static" block of these models (docs/scenes.md).
inline nlohmann::json stability_summary(const StabilityCheck& c) {
  return {{"stable", c.stable},
          {"kick_m", c.kick_m},
          {"moved_m", c.moved_m},
          {"unstable_equilibria_left", c.unstable_left}};
}

}  // namespace hairsim::reference
