#include "engine/simulator.hpp"

#include <omp.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "engine/der_cpu_backend.hpp"
#include "engine/der_host_batch.hpp"
#include "hairsim/error.hpp"
#include "reference/der/der_implicit.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim::engine {

Backend parse_backend(const std::string& name) {
  if (name == "reference") return Backend::reference;
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  if (name == "auto") {
#ifdef HAIRSIM_HAVE_CUDA
    if (cuda::device_count() > 0) return Backend::cuda;
#endif
    return Backend::cpu;
  }
  throw Error("backend", "must be auto, reference, cpu or cuda (got '" + name + "')");
}

Precision parse_precision(const std::string& name) {
  if (name == "float") return Precision::float32;
  if (name == "double") return Precision::float64;
  throw Error("precision", "must be float or double (got '" + name + "')");
}

std::string to_string(Backend b) {
  return b == Backend::reference ? "reference" : b == Backend::cpu ? "cpu" : "cuda";
}
std::string to_string(Precision p) {
  return p == Precision::float32 ? "float" : "double";
}

std::string cpu_description(int threads) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + ", " + std::to_string(threads) + " thread(s)";
}

double shortest_rest_edge(const StrandSet& strands) {
  double h = std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < strands.strand_count(); ++s) {
    const auto p = strands.strand(s);
    for (std::size_t i = 1; i < p.size(); ++i) h = std::min(h, (p[i] - p[i - 1]).norm());
  }
  return h;
}

double explicit_step_limit(const StrandSet& strands, const RodMaterial& m) {
  const double h = shortest_rest_edge(strands);
  return 0.1 * h * h * std::sqrt(m.linear_density() / m.bending_stiffness());
}

namespace {

template <class T>
kernels::Vector3<T> to_kernel(const der::Vec3& v) {
  return {T(v.x()), T(v.y()), T(v.z())};
}

}  // namespace

std::size_t push_out_of_colliders(StrandSet& strands,
                                  const std::vector<kernels::Collider<double>>& colliders) {
  std::size_t moved = 0;
  for (std::size_t s = 0; s < strands.strand_count(); ++s)
    for (std::size_t i = strands.offsets[s] + 2; i < strands.offsets[s + 1]; ++i)
      for (const kernels::Collider<double>& c : colliders) {
        // A mesh's distances are clamped beyond a band: a deeper vertex needs a few moves.
        Vec3& p = strands.points[i];
        bool moved_this = false;
        for (int attempt = 0; attempt < 16; ++attempt) {
          const kernels::Contact<double> k = kernels::contact(c, {p.x(), p.y(), p.z()});
          if (!k.inside) break;
          p = Vec3(k.surface.x, k.surface.y, k.surface.z);
          moved_this = true;
        }
        moved += moved_this;
      }
  return moved;
}

template <class T>
kernels::der::DerStepParameters<T> step_parameters(const HairSetup& setup, Precision precision) {
  const bool single = precision == Precision::float32;
  const double h = shortest_rest_edge(setup.strands);
  const double length = setup.relative_length_tolerance > 0 ? setup.relative_length_tolerance
                        : single                            ? 3e-5
                                                            : 1e-12;
  const double twist = setup.relative_twist_tolerance > 0 ? setup.relative_twist_tolerance
                       : single                           ? 1e-4
                                                          : 1e-8;
  kernels::der::DerStepParameters<T> p;
  p.integrator = setup.integrator;
  p.dt = T(setup.dt);
  p.gravity = to_kernel<T>(setup.gravity);
  p.damping = T(setup.damping);
  p.drag_normal = T(setup.drag_normal);
  p.drag_tangent = T(setup.drag_tangent);
  p.wind = kernels::convert<T>(setup.wind);
  p.length_tolerance = T(length * h);
  p.twist_tolerance = T(twist * setup.material.bending_stiffness() / h);
  p.collider_count = int(setup.colliders.size());
  for (int c = 0; c < p.collider_count; ++c)
    p.colliders[c] = convert_collider<T>(setup.colliders[c]);
  return p;
}

template <class T>
kernels::Collider<T> convert_collider(const kernels::Collider<double>& from) {
  kernels::Collider<T> to;
  to.shape = from.shape;
  to.a = {T(from.a.x), T(from.a.y), T(from.a.z)};
  to.b = {T(from.b.x), T(from.b.y), T(from.b.z)};
  to.radii = {T(from.radii.x), T(from.radii.y), T(from.radii.z)};
  to.friction = T(from.friction);
  const kernels::SdfGrid<double>& g = from.sdf;  // mesh colliders: the same float samples
  to.sdf.values = g.values;
  to.sdf.nx = g.nx, to.sdf.ny = g.ny, to.sdf.nz = g.nz;
  to.sdf.origin = {T(g.origin.x), T(g.origin.y), T(g.origin.z)};
  to.sdf.spacing = T(g.spacing);
  to.sdf.outside = T(g.outside);
  return to;
}
template kernels::Collider<float> convert_collider(const kernels::Collider<double>&);
template kernels::Collider<double> convert_collider(const kernels::Collider<double>&);

template <class T>
kernels::der::RigidPose<T> head_pose(const der::ClampMotion& head, double t) {
  kernels::der::RigidPose<T> pose;
  const der::Mat3 r = head.rotation(t);
  for (int k = 0; k < 3; ++k) pose.row[k] = {T(r(k, 0)), T(r(k, 1)), T(r(k, 2))};
  pose.center = to_kernel<T>(head.center.value_or(der::Vec3::Zero()));
  pose.translation = to_kernel<T>(head.translation(t));
  return pose;
}
template kernels::der::RigidPose<double> head_pose(const der::ClampMotion&, double);

template <class T>
void set_head_poses(kernels::der::DerStepParameters<T>& p, const der::ClampMotion& head, double t) {
  p.time = T(t);
  p.head_previous = head_pose<T>(head, t);
  p.head = head_pose<T>(head, t + double(p.dt));
}

template kernels::der::DerStepParameters<float> step_parameters(const HairSetup&, Precision);
template kernels::der::DerStepParameters<double> step_parameters(const HairSetup&, Precision);
template void set_head_poses(kernels::der::DerStepParameters<float>&, const der::ClampMotion&,
                             double);
template void set_head_poses(kernels::der::DerStepParameters<double>&, const der::ClampMotion&,
                             double);

void check_solves(const StepCounts& counts, long step) {
  if (counts.solver_failures > 0)
    throw RunFailure("step " + std::to_string(step),
                     "the implicit solve failed on " + std::to_string(counts.solver_failures) +
                         " strand step(s) (singular block: a non-finite state?)");
}

namespace {

// One DynamicRod per strand, stepped one after the other by the reference integrators.
class ReferenceSimulator final : public Simulator {
 public:
  ReferenceSimulator(const HairSetup& setup, int vertices)
      : Simulator(int(setup.strands.strand_count()), vertices, setup.dt),
        meshes_(setup.meshes),
        implicit_(setup.integrator == Integrator::implicit) {
    // The tolerances the double kernels use: the same convergence on both sides.
    const kernels::der::DerStepParameters<double> p =
        step_parameters<double>(setup, Precision::float64);
    length_tolerance_ = p.length_tolerance;
    for (std::size_t s = 0; s < setup.strands.strand_count(); ++s) {
      const auto points = setup.strands.strand(s);
      const RodMaterial& m = setup.material_of(s);
      der::DynamicRod rod = der::rod_at_rest({points.begin(), points.end()}, m.bending_stiffness(),
                                             m.twist_stiffness(), m.linear_density());
      der::clamp_end(rod, false, setup.head);
      rod.collider_motion = setup.head;
      rod.colliders = setup.colliders;
      rod.gravity = setup.gravity;
      rod.damping = setup.damping;
      rod.drag_normal = setup.drag_normal;
      rod.drag_tangent = setup.drag_tangent;
      rod.wind = setup.wind;
      rod.stretching_stiffness = m.stretching_stiffness();
      rod.twist_tolerance = p.twist_tolerance;
      rods_.push_back(std::move(rod));
    }
  }

  void step() override {
    for (der::DynamicRod& rod : rods_)
      if (implicit_)
        der::step_linearly_implicit(rod, dt());
      else
        counts_.projection_iterations +=
            der::step_symplectic(rod, dt(), length_tolerance_).iterations;
    ++steps_;
  }
  StepCounts counts() override { return counts_; }
  void positions(std::vector<der::Vec3>& out) override {
    out.clear();
    for (const der::DynamicRod& rod : rods_)
      out.insert(out.end(), rod.state.x.begin(), rod.state.x.end());
  }
  void velocities(std::vector<der::Vec3>& out) override {
    out.clear();
    for (const der::DynamicRod& rod : rods_)
      out.insert(out.end(), rod.velocity.begin(), rod.velocity.end());
  }
  std::string device() const override { return cpu_description(1); }

 private:
  std::vector<der::DynamicRod> rods_;
  std::vector<std::shared_ptr<const SignedDistanceGrid>> meshes_ = {};  // the colliders' grids
  bool implicit_;
  double length_tolerance_ = 0;
  StepCounts counts_;
};

// The batched kernels on the host, OpenMP over tiles of strands.
template <class T>
class CpuSimulator final : public Simulator {
 public:
  CpuSimulator(const HairSetup& setup, int vertices, Precision precision)
      : Simulator(int(setup.strands.strand_count()), vertices, setup.dt),
        batch_(int(setup.strands.strand_count()), vertices, 32, setup.integrator),
        parameters_(step_parameters<T>(setup, precision)),
        head_(setup.head),
        meshes_(setup.meshes) {
    load_strands(batch_, setup.strands,
                 [&](std::size_t s) -> const RodMaterial& { return setup.material_of(s); });
  }

  void step() override {
    set_head_poses(parameters_, head_, time());
    StepCounts c;
    c += der_step_cpu(batch_.arrays(), parameters_);
    check_solves(c, steps_);
    counts_ += {c.projection_iterations, c.twist_iterations, c.contacts, 0};
    ++steps_;
  }
  StepCounts counts() override { return counts_; }
  void positions(std::vector<der::Vec3>& out) override { gather(batch_.arrays().position, out); }
  void velocities(std::vector<der::Vec3>& out) override { gather(batch_.arrays().velocity, out); }
  std::string device() const override { return cpu_description(omp_get_max_threads()); }

 private:
  // A per-vertex vector array of the batch, strand after strand.
  void gather(T* const (&array)[3], std::vector<der::Vec3>& out) const {
    out.resize(std::size_t(strands()) * vertices());
#pragma omp parallel for schedule(static)
    for (int s = 0; s < strands(); ++s)
      for (int i = 0; i < vertices(); ++i) {
        const std::size_t at = batch_.vertex_index(i, s);
        out[std::size_t(s) * vertices() + i] = {double(array[0][at]), double(array[1][at]),
                                                double(array[2][at])};
      }
  }

  DerHostBatch<T> batch_;
  kernels::der::DerStepParameters<T> parameters_;
  der::ClampMotion head_;
  std::vector<std::shared_ptr<const SignedDistanceGrid>> meshes_ = {};  // the colliders' grids
  StepCounts counts_;
};

}  // namespace

std::unique_ptr<Simulator> Simulator::create(const HairSetup& setup,
                                             const SimulatorOptions& options) {
  if (options.model != "der" && options.model != "cosserat")
    throw Error("model", "unknown model '" + options.model + "' (available: der, cosserat)");
  const StrandSet& strands = setup.strands;
  if (strands.strand_count() == 0) throw Error("strands", "no strands to simulate");
  const int vertices = int(strands.strand_size(0));
  for (std::size_t s = 0; s < strands.strand_count(); ++s)
    if (strands.strand_size(s) != std::size_t(vertices) || vertices < 3)
      throw Error("strands", "every strand needs the same vertex count, >= 3 (strand " +
                                 std::to_string(s) + " has " +
                                 std::to_string(strands.strand_size(s)) + "; resample first)");
  if (setup.colliders.size() > std::size_t(kernels::der::kMaxColliders))
    throw Error("colliders", "at most " + std::to_string(kernels::der::kMaxColliders) +
                                 " analytic colliders (got " +
                                 std::to_string(setup.colliders.size()) + ")");
  if (!(setup.dt > 0)) throw Error("dt", "must be positive");
  if (!setup.strand_materials.empty() && setup.strand_materials.size() != strands.strand_count())
    throw Error("strand_materials", "needs one material per strand");
  HairSetup head_centred = setup;  // rotations about the head's centre, the origin by default
  if (!head_centred.head.center) head_centred.head.center = der::Vec3::Zero();
  if (options.model == "cosserat") return make_cosserat_simulator(head_centred, options);
  switch (options.backend) {
    case Backend::reference:
      if (options.precision != Precision::float64)
        throw Error("precision", "the reference backend runs in double only");
      return std::make_unique<ReferenceSimulator>(head_centred, vertices);
    case Backend::cpu:
      if (options.precision == Precision::float32)
        return std::make_unique<CpuSimulator<float>>(head_centred, vertices, options.precision);
      return std::make_unique<CpuSimulator<double>>(head_centred, vertices, options.precision);
    case Backend::cuda:
#ifdef HAIRSIM_HAVE_CUDA
      return make_cuda_simulator(head_centred, options.precision);
#else
      throw RunFailure("backend 'cuda'", "hairsim was built without CUDA");
#endif
  }
  throw Error("backend", "unknown backend");
}

}  // namespace hairsim::engine
