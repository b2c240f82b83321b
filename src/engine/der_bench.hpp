#pragma once
// `hairsim bench` for DER: one symplectic step of a generated hairstyle (wavy, human hair) timed
// on a backend: reference (one strand at a time, Eigen), cpu (batched kernels, all cores) or
// cuda (the same kernels, one thread per strand).
#include <string>

#include <nlohmann/json.hpp>

namespace hairsim::engine {

struct DerBenchCase {
  std::string backend;    // reference, cpu, cuda
  std::string precision;  // float, double (reference: double)
  int strands = 1000, vertices = 32, steps = 20;
};

struct DerBenchResult {
  DerBenchCase config;
  double ms_per_step = 0;
  double svu_per_second = 0;  // strand-vertex updates per second
  std::string device;         // CPU model and threads, or GPU name
  // Mean iterations per strand and step (cpu backend; -1 where not measured).
  double projection_iterations = -1, twist_iterations = -1;
  bool ran = false;  // false: backend not available here (`note` says why)
  std::string note;
};

// Throws Error for an unknown backend or precision; a cuda case without a device or without
// CUDA in the build comes back with ran = false.
DerBenchResult run_der_bench(const DerBenchCase& c);

nlohmann::json to_json(const DerBenchResult& r);

}  // namespace hairsim::engine
