#pragma once
// `hairsim bench`: steps of a generated hairstyle (wavy, human hair, roots clamped to a still
// head, gravity, damping) timed through the simulator API, for any registered model on a
// backend: reference (one strand at a time, Eigen), cpu (batched kernels, all cores) or cuda (the
// same kernels, one thread per strand); its integrators, with or without the head collider.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model.hpp"

namespace hairsim::engine {

struct BenchCase {
  std::string model;        // a name in the model table
  std::string backend;      // reference, cpu, cuda
  std::string precision;    // float, double (reference: double)
  std::string integrator;   // symplectic, implicit ("": the model's default)
  bool collisions = false;  // the head collider (bench_setup), tested at every vertex
  int strands = 1000, vertices = 32, steps = 20;
  // > 0: only this many distinct strands generated, repeated in turn up to `strands` (each a
  // copy of the same polyline at the same root: the same per-strand work, the setup's fits done
  // once per shape: engine/strand_copies.hpp). 0: every strand generated.
  int distinct_strands = 0;
};

struct BenchResult {
  BenchCase config;  // its integrator resolved
  double dt = 0;     // s
  double ms_per_step = 0;
  double svu_per_second = 0;  // strand-vertex updates per second
  std::string device;         // CPU model and threads, or GPU name
  // The model's own columns (Model::bench_columns): means of its work counters, NaN where the
  // backend does not count them.
  std::vector<BenchColumn> columns;
  // Bytes of batch arrays read and written per strand-vertex update, counted in a build with
  // -DHAIRSIM_COUNT_ACCESSES (scripts/kernel-counts.sh; cpu backend); NaN in other builds.
  double load_bytes_per_svu = std::nan("");
  double store_bytes_per_svu = std::nan("");
  double seconds = 0;   // wall time of the whole case: setup, warm-up and timed steps
  bool ran = false;     // false: not run here or not finished (`note` says why)
  bool failed = false;  // a step failed (a CUDA error, a failed solve the run cannot survive)
  std::string note;
};

// A prediction of a case's wall time from a smaller case of the same series (same model,
// backend, precision, integrator, collisions, vertices): linear in the strand count, which
// over-predicts where a GPU is not yet full (a safe error for a time budget).
double predict_seconds(const BenchResult& smaller, int strands);

// Throws Error for an unknown model, backend, precision or integrator. A case that cannot be set
// up here (a cuda case without a device or without CUDA in the build, more memory than the host
// or device has) comes back with ran = false; one whose steps fail, with failed = true too.
BenchResult run_bench(const BenchCase& c);

nlohmann::json to_json(const BenchResult& r);

}  // namespace hairsim::engine
