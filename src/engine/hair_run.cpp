#include "engine/hair_run.hpp"

#include <Eigen/Geometry>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "engine/model.hpp"
#include "hairsim/error.hpp"
#include "hairsim/io.hpp"
#include "hairsim/render.hpp"
#include "io/file_bytes.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::engine {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

using bridge::from_kernel;
using bridge::to_kernel;

// What one frame's state measures (summary.json): stretch, penetration, root drift, energy.
struct FrameStats {
  double max_stretch = 0;           // max | |e| / |ē| - 1 |
  double max_penetration = 0;       // m, deepest vertex inside a collider
  double max_root_drift = 0;        // m, root vertices from where the head pose puts them
  double kinetic = 0, gravity = 0;  // J
};

class FrameMeter {
 public:
  FrameMeter(const HairScene& sc, const std::vector<Vec3>& start, int vertices)
      : sc_(sc), start_(start), v_(vertices), colliders_(kernel_colliders(sc.setup)) {
    mass_.assign(start.size(), 0.0);
    rest_.assign(start.size(), 0.0);

    for (std::size_t s = 0; s * v_ < start.size(); ++s)
      for (int i = 0; i + 1 < v_; ++i) {
        const double rho_s = sc.setup.material_of(s).linear_density();
        const std::size_t a = s * v_ + i;
        rest_[a] = (start[a + 1] - start[a]).norm();
        mass_[a] += 0.5 * rho_s * rest_[a];
        mass_[a + 1] += 0.5 * rho_s * rest_[a];
      }
  }

  FrameStats measure(const std::vector<Vec3>& x, const std::vector<Vec3>& v, double t) const {
    FrameStats f;
    const kernels::RigidPose<double> pose = bridge::rigid_pose<double>(sc_.setup.head, t);
    for (std::size_t a = 0; a < x.size(); ++a) {
      const int i = int(a % v_);
      if (i + 1 < v_)
        f.max_stretch = std::max(f.max_stretch, std::abs((x[a + 1] - x[a]).norm() / rest_[a] - 1));
      if (i < 2) {
        f.max_root_drift = std::max(f.max_root_drift,
                                    (x[a] - from_kernel(pose.apply(to_kernel(start_[a])))).norm());
      } else {
        const kernels::Vector3<double> local = pose.apply_inverse(to_kernel(x[a]));
        for (const kernels::Collider<double>& c : colliders_) {
          const kernels::Contact<double> k = kernels::contact(c, local);
          if (k.inside)
            f.max_penetration = std::max(f.max_penetration, kernels::norm(local - k.surface));
        }
      }
      f.kinetic += 0.5 * mass_[a] * v[a].squaredNorm();
      f.gravity -= mass_[a] * sc_.setup.gravity.dot(x[a]);
    }
    return f;
  }

 private:
  const HairScene& sc_;
  std::vector<Vec3> start_;
  int v_;
  std::vector<double> mass_, rest_;                   // per vertex; rest_: edge starting there
  std::vector<kernels::Collider<double>> colliders_;  // the setup's (its grids live in it)
};

// Names the first non-finite value (strand and vertex) or returns nothing.
std::optional<std::string> first_non_finite(const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                                            int vertices) {
  for (std::size_t a = 0; a < x.size(); ++a)
    if (!x[a].allFinite() || !v[a].allFinite())
      return "strand " + std::to_string(a / vertices) + " (vertex " + std::to_string(a % vertices) +
             ")";
  return std::nullopt;
}

StrandSet as_strands(const std::vector<Vec3>& x, int strands, int vertices) {
  StrandSet s;
  s.points = x;
  s.offsets.resize(std::size_t(strands) + 1);
  for (int k = 0; k <= strands; ++k) s.offsets[k] = std::size_t(k) * vertices;
  return s;
}

std::string frame_name(int frame, const char* extension) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%05d.%s", frame, extension);
  return name;
}

bool ffmpeg_available() {
  return std::system("command -v ffmpeg >/dev/null 2>&1") == 0;
}

// Progress: a bar redrawn in place on a terminal, else a plain line every tenth of the run.
class Progress {
 public:
  Progress(const RunControl& c, int frames) : c_(c), frames_(frames) {}
  void frame_done(int frame, double sim_time, double ms_per_frame) {
    if (!c_.progress) return;
    const double eta = ms_per_frame * (frames_ - frame) * 1e-3;
    char text[160];
    std::snprintf(text, sizeof text, "frame %d/%d  t = %.3f s  %.0f ms/frame  ETA %.0f s", frame,
                  frames_, sim_time, ms_per_frame, eta);
    if (c_.terminal) {
      const int width = 30, filled = frames_ ? width * frame / frames_ : width;
      *c_.progress << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] "
                   << text << "   " << std::flush;
      if (frame == frames_) *c_.progress << "\n";
    } else if (frame == frames_ || frame % std::max(1, frames_ / 10) == 0) {
      *c_.progress << text << "\n" << std::flush;
    }
  }
  void interrupted() {
    if (c_.progress && c_.terminal) *c_.progress << "\n";
  }

 private:
  const RunControl& c_;
  int frames_;
};

// The run's optional outputs, frame by frame (strand files, the animated .usda, PNG previews)
// and at the end (the .usda's assembly, the MP4), with the wall time each took.
class FrameOutputs {
 public:
  FrameOutputs(const HairScene& sc, const std::filesystem::path& out,
               const std::vector<Vec3>& start, int strands, int vertices)
      : sc_(sc), out_(out), strands_(strands), vertices_(vertices) {
    if (sc.output.usd)
      usd_.emplace(out / "hair.usda", as_strands(start, strands, vertices), sc.fps);
    if (!sc.output.frames.empty()) std::filesystem::create_directories(out / "frames");
    if (sc.output.png_every > 0) std::filesystem::create_directories(out / "png");
    view_ = preview_camera(sc, start);
  }

  void write(int frame, double t, const std::vector<Vec3>& x) {
    Clock::time_point t0 = Clock::now();
    if (!sc_.output.frames.empty())
      write_strands(out_ / "frames" / frame_name(frame, sc_.output.frames.c_str()),
                    as_strands(x, strands_, vertices_));
    frames_s += seconds_since(t0);
    t0 = Clock::now();
    if (usd_) usd_->add_frame(frame, x);
    usd_s += seconds_since(t0);
    t0 = Clock::now();
    if (sc_.output.png_every > 0 && frame % sc_.output.png_every == 0) {
      const kernels::RigidPose<double> pose = bridge::rigid_pose<double>(sc_.setup.head, t);
      TriangleMesh head = sc_.preview_head;
      for (Vec3& p : head.vertices) p = from_kernel(pose.apply(to_kernel(p)));
      write_png(out_ / "png" / frame_name(frame, "png"),
                render(as_strands(x, strands_, vertices_), head.vertices.empty() ? nullptr : &head,
                       view_));
      ++png_count_;
    }
    png_s += seconds_since(t0);
  }

  // Completes the .usda and assembles the MP4; the files made go into `written`. Returns a
  // note when an asked-for MP4 could not be made.
  std::string finish(std::vector<std::filesystem::path>& written) {
    Clock::time_point t0 = Clock::now();
    if (usd_) {
      usd_->finish();
      written.push_back(out_ / "hair.usda");
    }
    usd_s += seconds_since(t0);
    t0 = Clock::now();
    std::string note;
    if (sc_.output.mp4 && png_count_ > 0) {
      if (!ffmpeg_available()) {
        note = "ffmpeg is not installed: no MP4 (the PNG frames are in png/)";
      } else if (std::system(mp4_command().c_str()) == 0) {
        written.push_back(out_ / "hair.mp4");
      } else {
        note = "ffmpeg failed: no MP4 (the PNG frames are in png/)";
      }
    }
    mp4_s = seconds_since(t0);
    return note;
  }

  double frames_s = 0, usd_s = 0, png_s = 0, mp4_s = 0;

 private:
  // One camera for the whole run: the start's bounding box (hair and head), grown by a sixth.
  static RenderOptions preview_camera(const HairScene& sc, const std::vector<Vec3>& start) {
    RenderOptions view;
    view.width = sc.output.width;
    view.height = sc.output.height;
    view.azimuth_deg = sc.output.azimuth_deg;
    view.elevation_deg = sc.output.elevation_deg;
    view.supersample = 2;
    view.up = -sc.setup.gravity.normalized();
    if (!view.up.allFinite()) view.up = Vec3::UnitY();
    Vec3 lo = Vec3::Constant(1e300), hi = -lo;
    for (const Vec3& p : start) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
    for (const Vec3& p : sc.preview_head.vertices) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
    const Vec3 grow = (hi - lo) / 12;
    view.frame_min = lo - grow;
    view.frame_max = hi + grow;
    return view;
  }

  std::string mp4_command() const {
    const double rate = sc_.fps / sc_.output.png_every;
    return "ffmpeg -y -loglevel error -framerate " + std::to_string(rate) +
           " -pattern_type glob -i '" + (out_ / "png").string() +
           "/frame_*.png' -c:v libx264 -pix_fmt yuv420p -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' '" +
           (out_ / "hair.mp4").string() + "'";
  }

  const HairScene& sc_;
  std::filesystem::path out_;
  int strands_, vertices_;
  std::optional<UsdaAnimationWriter> usd_;
  RenderOptions view_;
  int png_count_ = 0;
};

// The worst of every frame's measures, and the per-frame trace for the summary.
struct RunMeasures {
  FrameStats worst;
  nlohmann::json trace = nlohmann::json::array();

  void add(int frame, double t, const FrameStats& f) {
    worst.max_stretch = std::max(worst.max_stretch, f.max_stretch);
    worst.max_penetration = std::max(worst.max_penetration, f.max_penetration);
    worst.max_root_drift = std::max(worst.max_root_drift, f.max_root_drift);
    trace.push_back({{"frame", frame},
                     {"time_s", t},
                     {"kinetic_j", f.kinetic},
                     {"gravity_j", f.gravity},
                     {"max_stretch", f.max_stretch},
                     {"max_penetration_m", f.max_penetration}});
  }
};

}  // namespace

HairRunResult run_hair_scene(const HairScene& sc, const std::filesystem::path& out,
                             const RunControl& control) {
  const Clock::time_point run_start = Clock::now();
  std::unique_ptr<Simulator> sim = Simulator::create(sc.setup, sc.options);
  const int vertices = sim->vertices();
  const double setup_s = seconds_since(run_start);
  double simulate_s = 0, readback_s = 0;

  std::filesystem::create_directories(out);
  std::vector<Vec3> x, v;
  sim->positions(x);
  sim->velocities(v);
  const FrameMeter meter(sc, x, vertices);
  FrameOutputs outputs(sc, out, x, sim->strands(), vertices);
  RunMeasures measures;
  measures.add(0, 0.0, meter.measure(x, v, 0.0));
  outputs.write(0, 0.0, x);

  HairRunResult result;
  Progress progress(control, sc.frames);
  int frames_done = 0;
  std::optional<std::string> diverged;
  for (int frame = 1; frame <= sc.frames; ++frame) {
    const Clock::time_point frame_start = Clock::now();
    for (int k = 0; k < sc.steps_per_frame; ++k) sim->step();
    const Clock::time_point t0 = Clock::now();
    sim->positions(x);
    sim->velocities(v);
    readback_s += seconds_since(t0);
    simulate_s += std::chrono::duration<double>(t0 - frame_start).count();
    if ((diverged = first_non_finite(x, v, vertices))) {
      *diverged += ", step " + std::to_string(sim->steps());
      break;
    }
    measures.add(frame, sim->time(), meter.measure(x, v, sim->time()));
    outputs.write(frame, sim->time(), x);
    frames_done = frame;
    progress.frame_done(frame, sim->time(), 1e3 * seconds_since(frame_start));
    if (control.stop && control.stop->load()) {
      result.interrupted = frame < sc.frames;
      if (result.interrupted) progress.interrupted();
      break;
    }
  }
  const std::string mp4_note = outputs.finish(result.written);

  const StepCounters counts = sim->counts();
  const long steps = sim->steps();
  nlohmann::json& s = result.summary;
  s["status"] = diverged ? "diverged" : result.interrupted ? "interrupted" : "complete";
  s["model"] = sc.options.model;
  s["backend"] = to_string(sc.options.backend);
  s["device"] = sim->device();
  s["precision"] = to_string(sc.options.precision);
  s["integrator"] = to_string(sc.setup.integrator);
  s["hair"] = sc.hair_source;
  s["strands"] = sim->strands();
  s["vertices_per_strand"] = vertices;
  s["frames"] = frames_done;
  s["frames_asked"] = sc.frames;
  s["fps"] = sc.fps;
  s["steps"] = steps;
  s["dt_s"] = sc.setup.dt;
  s["simulated_time_s"] = sim->time();
  s["wall_time_s"] = {{"setup", setup_s},       {"simulate", simulate_s},
                      {"readback", readback_s}, {"frame_files", outputs.frames_s},
                      {"png", outputs.png_s},   {"usd", outputs.usd_s},
                      {"mp4", outputs.mp4_s},   {"total", seconds_since(run_start)}};
  s["svu_per_second"] =
      simulate_s > 0 ? double(sim->strands()) * vertices * double(steps) / simulate_s : 0.0;
  s["max_stretch"] = measures.worst.max_stretch;
  s["max_penetration_m"] = measures.worst.max_penetration;
  s["max_root_drift_m"] = measures.worst.max_root_drift;
  s["contacts_per_step"] = steps > 0 ? double(counts["contacts"]) / double(steps) : 0.0;
  s["vertices_pushed_out"] = sc.pushed_out;
  const Model& model = find_model(sc.options.model);
  if (model.summary) {  // the model's own fields
    const double strand_steps = double(sim->strands()) * double(steps);
    s["solver"] = model.summary(sc.setup, sc.options, counts, strand_steps);
  }
  s["energy"] = measures.trace;
  if (!sc.notice.empty()) s["notice"] = sc.notice;
  if (!mp4_note.empty()) s["mp4_note"] = mp4_note;
  if (diverged) s["diverged_at"] = *diverged;
  io::write_file_atomically(out / "summary.json", s.dump(2) + "\n");
  result.written.push_back(out / "summary.json");
  if (!mp4_note.empty() && control.progress) *control.progress << "notice: " << mp4_note << "\n";
  if (diverged)
    throw RunFailure(*diverged, "non-finite position or velocity by the end of frame " +
                                    std::to_string(frames_done + 1) + "; frames 0 to " +
                                    std::to_string(frames_done) + " are written");
  return result;
}

}  // namespace hairsim::engine
