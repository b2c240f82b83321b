#pragma once
// `hairsim bench`: steps of a generated hairstyle (wavy, human hair, roots clamped to a still
// head, gravity, damping) timed through the simulator API, for any registered model on a
// backend: reference (one strand at a time, Eigen), cpu (batched kernels, all cores) or cuda (the
// same kernels, one thread per strand); its integrators, with or without the head collider.
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
  bool ran = false;  // false: backend not available here (`note` says why)
  std::string note;
};

// Throws Error for an unknown model, backend, precision or integrator; a cuda case without a
// device or without CUDA in the build comes back with ran = false.
BenchResult run_bench(const BenchCase& c);

nlohmann::json to_json(const BenchResult& r);

}  // namespace hairsim::engine
