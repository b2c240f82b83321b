#pragma once
// `hairsim bench` for DER (and Cosserat: --model cosserat): steps of a generated hairstyle (wavy,
// human hair, roots clamped to a still head, gravity, damping) timed through the simulator API on a
// backend: reference (one strand at a time, Eigen), cpu (batched kernels, all cores) or cuda (the
// same kernels, one thread per strand); either integrator, with or without the head collider.
#include <string>

#include <nlohmann/json.hpp>

namespace hairsim::engine {

struct DerBenchCase {
  std::string model = "der";              // der, cosserat (implicit only)
  std::string backend;                    // reference, cpu, cuda
  std::string precision;                  // float, double (reference: double)
  std::string integrator = "symplectic";  // symplectic, implicit
  bool collisions = false;                // the head collider (bench_setup), tested at every vertex
  int strands = 1000, vertices = 32, steps = 20;
};

struct DerBenchResult {
  DerBenchCase config;
  double dt = 0;  // s
  double ms_per_step = 0;
  double svu_per_second = 0;  // strand-vertex updates per second
  std::string device;         // CPU model and threads, or GPU name
  // Means per strand and step (-1 where the backend does not count them).
  double projection_iterations = -1, twist_iterations = -1, contacts = -1;
  // Cosserat: Newton iterations per strand and step, PCG iterations per solve.
  double newton_iterations = -1, pcg_iterations = -1;
  bool ran = false;  // false: backend not available here (`note` says why)
  std::string note;
};

// Throws Error for an unknown backend, precision or integrator; a cuda case without a device or
// without CUDA in the build comes back with ran = false.
DerBenchResult run_der_bench(const DerBenchCase& c);

nlohmann::json to_json(const DerBenchResult& r);

}  // namespace hairsim::engine
