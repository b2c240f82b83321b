#pragma once
// A hairstyle on a reduced model's reference: one reference rod per strand, stepped one after the
// other on one thread (the yardstick of the model's batched kernels and the bench's reference
// rows), its output points (`hair.vertices` per strand) sampled on each rod's centreline. A model
// supplies its rods' traits:
//
//   using Rod = ...;
//   static int step(Rod&, double dt);                     // one step; returns its contact pairs
//   static void save(StateWriter&, const Rod&);           // the state a step changes
//   static void restore(StateReader&, Rod&);
//   static void sample(const Rod&, int vertices, bool velocity,
//                      std::vector<Vec3>& out);           // appends the output points' positions
//                                                         // (or velocities)
//
// Its counters are the reduced models' batch counters: solver_failures (a failed step also
// throws), contacts, dropped_contacts (the reference drops none), and the names of the model's
// other kernel counters that count what cannot happen on the reference (optional
// `static constexpr std::array<const char*, N> kNeverOnReference`, read as 0: e.g. the clothoid
// kernels' series cut at their fixed term count, where the reference's series have no cap), so
// that a model's backends report one set of counters.
#include <memory>
#include <string>
#include <vector>

#include "engine/simulator.hpp"
#include "engine/state_io.hpp"

namespace hairsim::engine {

template <class Rods>
class RodReferenceSimulator final : public Simulator {
 public:
  using Rod = typename Rods::Rod;

  // `measures`: what making the rods measured (setup_measures: a fit's error).
  RodReferenceSimulator(const HairSetup& setup, std::vector<Rod> rods,
                        std::vector<std::pair<std::string, double>> measures = {})
      : Simulator(int(setup.strands.strand_count()), int(setup.strands.strand_size(0)), setup.dt),
        rods_(std::move(rods)),
        measures_(std::move(measures)) {}

  // A rod's failed step (a diverged curvature, a non-finite state) fails the run naming the
  // strand and the step, as the kernels' executors do, with the rod's own reason.
  void step() override {
    for (std::size_t s = 0; s < rods_.size(); ++s) {
      try {
        contacts_ += Rods::step(rods_[s], dt());
      } catch (const RunFailure& e) {
        ++failures_;
        throw RunFailure(strand_step_location(long(s), steps_, dt()), e.where() + ": " + e.why());
      }
    }
    ++steps_;
  }
  StepCounters counts() override {
    StepCounters c{{"solver_failures", "contacts", "dropped_contacts"}, {failures_, contacts_, 0}};
    if constexpr (requires { Rods::kNeverOnReference; })
      for (const char* name : Rods::kNeverOnReference)
        c.names.push_back(name), c.values.push_back(0);
    return c;
  }
  void positions(std::vector<Vec3>& out) override { sample(out, false); }
  void velocities(std::vector<Vec3>& out) override { sample(out, true); }
  std::string device() const override { return cpu_description(1); }
  std::vector<std::pair<std::string, double>> setup_measures() const override { return measures_; }
  const std::vector<Rod>& rods() const { return rods_; }

 protected:
  void save_model_state(std::string& out) override {
    StateWriter w(out);
    w.value(contacts_);
    for (const Rod& rod : rods_) Rods::save(w, rod);
  }
  void restore_model_state(std::string_view state) override {
    StateReader in(state);
    in.value(contacts_);
    for (Rod& rod : rods_) Rods::restore(in, rod);
    if (!in.done()) throw Error("checkpoint", "the saved state does not fit this simulator");
  }

 private:
  void sample(std::vector<Vec3>& out, bool velocity) const {
    out.clear();
    for (const Rod& rod : rods_) Rods::sample(rod, vertices(), velocity, out);
  }

  std::vector<Rod> rods_;
  std::vector<std::pair<std::string, double>> measures_;
  long contacts_ = 0;
  long failures_ = 0;
};

// The reference simulator of a reduced model, whose rods are fitted to the strands:
// `fit_rods(setup, &measures)` makes them and says what that measured (setup_measures: the fit's
// largest point distance "fit_max_error_m", the sag-free solve's).
template <class Rods, class FitRods>
std::unique_ptr<Simulator> make_fitted_reference(const HairSetup& setup, FitRods&& fit_rods) {
  SetupMeasures measures;
  std::vector<typename Rods::Rod> rods = fit_rods(setup, &measures);
  return std::make_unique<RodReferenceSimulator<Rods>>(setup, std::move(rods), std::move(measures));
}

}  // namespace hairsim::engine
