#include "engine/hair_run.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>

#include "engine/checkpoint.hpp"
#include "engine/interaction_stage.hpp"
#include "engine/model.hpp"
#include "engine/strand_copies.hpp"
#include "engine/threads.hpp"
#include "hairsim/error.hpp"
#include "hairsim/guides.hpp"
#include "hairsim/io.hpp"
#include "hairsim/render.hpp"
#include "io/file_bytes.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::engine {
namespace {

using Clock = std::chrono::steady_clock;

constexpr long long kMaxInteger = std::numeric_limits<long long>::max();

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

using bridge::from_kernel;
using bridge::to_kernel;

// What one frame's state measures (summary.json): stretch, penetration, root drift, energy, and
// where the stretch and the speed are worst (the run's guard).
struct FrameStats {
  double max_stretch = 0;      // max | |e| / |ē| - 1 |
  double max_penetration = 0;  // m, deepest vertex inside a collider
  double max_root_drift = 0;   // m, root vertices from where the head pose puts them
  // m, any vertex from where the head pose puts its place at t = 0 (the groom as the model
  // holds it: a reduced model's fit): how far the hair left its groom (sag, or motion).
  double max_drift_from_groom = 0;
  double max_speed = 0;                      // m/s, fastest vertex
  double kinetic = 0, gravity = 0;           // J
  std::size_t stretch_at = 0, speed_at = 0;  // vertex (strand-major) of the largest of each
};

class FrameMeter {
 public:
  FrameMeter(const HairScene& sc, const std::vector<Vec3>& start, int vertices)
      : sc_(sc),
        start_(start),
        v_(vertices),
        held_(find_model(sc.options.model).held_vertices),
        edges_kept_(find_model(sc.options.model).inextensible_edges),
        colliders_(kernel_colliders(sc.setup)) {
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
      if (edges_kept_ && i + 1 < v_) {
        const double stretch = std::abs((x[a + 1] - x[a]).norm() / rest_[a] - 1);
        if (!(stretch <= f.max_stretch)) f.max_stretch = stretch, f.stretch_at = a;
      }
      const double speed = v[a].norm();
      if (!(speed <= f.max_speed)) f.max_speed = speed, f.speed_at = a;
      const double drift = (x[a] - from_kernel(pose.apply(to_kernel(start_[a])))).norm();
      f.max_drift_from_groom = std::max(f.max_drift_from_groom, drift);
      if (i < held_) {
        f.max_root_drift = std::max(f.max_root_drift, drift);
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
  int held_;                         // output points the head holds (the model's)
  bool edges_kept_;                  // whether the output edges keep their length (the model's)
  std::vector<double> mass_, rest_;  // per vertex; rest_: edge starting there
  std::vector<kernels::Collider<double>> colliders_;  // the setup's (its grids live in it)
};

// The first vertex (strand-major) with a non-finite position or velocity, if any.
std::optional<std::size_t> first_non_finite(const std::vector<Vec3>& x,
                                            const std::vector<Vec3>& v) {
  for (std::size_t a = 0; a < x.size(); ++a)
    if (!x[a].allFinite() || !v[a].allFinite()) return a;
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

// Every point of `a`, then every point of `b`, as one strand set (output.strands = "both").
StrandSet joined(const StrandSet& a, const StrandSet& b) {
  StrandSet s = a;
  s.points.insert(s.points.end(), b.points.begin(), b.points.end());
  for (std::size_t i = 1; i < b.offsets.size(); ++i)
    s.offsets.push_back(a.point_count() + b.offsets[i]);
  return s;
}

// An image shrunk by an integer factor (box filter in the encoded values: a thumbnail).
Image shrink(const Image& in, int factor) {
  Image out{in.width / factor, in.height / factor, {}};
  out.rgb.resize(std::size_t(3) * out.width * out.height);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x)
      for (int k = 0; k < 3; ++k) {
        int sum = 0;
        for (int j = 0; j < factor; ++j)
          for (int i = 0; i < factor; ++i)
            sum += in.rgb[(std::size_t(y * factor + j) * in.width + (x * factor + i)) * 3 + k];
        out.rgb[(std::size_t(y) * out.width + x) * 3 + k] =
            std::uint8_t((sum + factor * factor / 2) / (factor * factor));
      }
  return out;
}

// Six thumbnails, evenly spread over the run's previews (first and last included), 3 x 2.
Image contact_sheet(const std::vector<Image>& thumbs) {
  const int n = int(thumbs.size()), cells = std::min(6, n);
  const int cols = std::min(3, cells), rows = (cells + cols - 1) / cols;
  const int w = thumbs.front().width, h = thumbs.front().height, gap = 4;
  Image sheet{cols * w + (cols + 1) * gap, rows * h + (rows + 1) * gap, {}};
  sheet.rgb.assign(std::size_t(3) * sheet.width * sheet.height, 24);
  for (int c = 0; c < cells; ++c) {
    const Image& t = thumbs[cells > 1 ? std::size_t(c) * (n - 1) / (cells - 1) : 0];
    const int x0 = gap + (c % cols) * (w + gap), y0 = gap + (c / cols) * (h + gap);
    for (int y = 0; y < h; ++y)
      std::copy_n(t.rgb.begin() + std::ptrdiff_t(3) * y * w, 3 * w,
                  sheet.rgb.begin() + (std::ptrdiff_t(y0 + y) * sheet.width + x0) * 3);
  }
  return sheet;
}

// The hair's density on the grid plane x = x0 (a sagittal slice for a y-up head), as the
// interaction stage sees it (every vertex of equal weight, cells of h): black for none, white
// for the slice's densest node; +z to the right, +y up, 4 px per node (at least 256 px across).
Image density_slice(const std::vector<Vec3>& x, double h, double x0) {
  engine::HostInteraction<double> stage;
  const std::vector<double> mass(x.size(), 1.0);
  kernels::interaction::Points<double> pts;
  for (int c = 0; c < 3; ++c) {
    pts.position.array[c] = pts.velocity.array[c] = const_cast<double*>(x[0].data()) + c;
    pts.position.component_row[c] = pts.velocity.component_row[c] = 0;
  }
  pts.position.rows = pts.velocity.rows = 3 * int(x.size());
  pts.position.vertex_rows = pts.velocity.vertex_rows = 3;
  pts.mass = {const_cast<double*>(mass.data()), int(x.size()), 1, 0};
  pts.strands = 1, pts.vertices = int(x.size()), pts.tile_width = 1;
  stage.splat(pts, h);
  const kernels::interaction::Grid<double>& g = stage.grid();
  const int i = std::clamp(int(std::lround((x0 - g.origin.x) / h)), 0, g.nx - 1);
  double top = 0;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j) top = std::max(top, stage.nodes().mass[g.node(i, j, k)]);
  const int scale = std::max(4, (256 + std::max(g.ny, g.nz) - 1) / std::max(g.ny, g.nz));
  Image image;
  image.width = g.nz * scale, image.height = g.ny * scale;
  image.rgb.assign(std::size_t(image.width) * image.height * 3, 0);
  for (int py = 0; py < image.height; ++py)
    for (int px = 0; px < image.width; ++px) {
      const int j = g.ny - 1 - py / scale, k = px / scale;
      const double d = top > 0 ? stage.nodes().mass[g.node(i, j, k)] / top : 0;
      const auto level =
          std::uint8_t(std::lround(255 * std::sqrt(d)));  // gamma for the sparse ends
      for (int c = 0; c < 3; ++c) image.rgb[(std::size_t(py) * image.width + px) * 3 + c] = level;
    }
  return image;
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
  // `resumed`: a checkpoint whose record of the outputs (frames written, the .usda's progress)
  // to take up, up to frame `frames_done`; null for a fresh run.
  FrameOutputs(const HairScene& sc, const std::filesystem::path& out,
               const std::vector<Vec3>& start, int strands, int vertices,
               const CheckpointFields* resumed, int frames_done)
      : sc_(sc), out_(out), strands_(strands), vertices_(vertices) {
    const Clock::time_point t0 = Clock::now();
    if (sc.render.strands > 0) {  // weights and offsets from the guides at rest, found once
      colliders_ = kernel_colliders(sc.setup);
      interp_.emplace(sc.setup.strands, sc.render.roots, sc.render.options);
      interp_->interpolate(start);
      interp_->render_strands(render_);
    }
    if (interp_) push_out_of_head(render_, 0.0);
    render_s += seconds_since(t0);
    const StrandSet first = file_strands(start);
    file_strands_ = first.strand_count();
    // Every field read before the .usda's frames file is taken up (and cut back to the record).
    if (resumed) png_count_ = int(resumed->integer("outputs.png_count", 0, frames_done + 1));
    if (sc.output.usd && resumed) {
      const CheckpointFields& r = *resumed;
      const int first_frame = int(r.integer("outputs.usd.first", 0, frames_done));
      usd_.emplace(
          out / "hair.usda", first, sc.fps,
          UsdaAnimationWriter::Progress{
              std::uint64_t(r.integer("outputs.usd.body_bytes", 0, kMaxInteger)), first_frame,
              int(r.integer("outputs.usd.last", first_frame - 1, frames_done))});
    } else if (sc.output.usd) {
      usd_.emplace(out / "hair.usda", first, sc.fps);
    }
    if (!sc.output.frames.empty()) std::filesystem::create_directories(out / "frames");
    if (sc.output.png_every > 0) std::filesystem::create_directories(out / "png");
    view_ = preview_camera(sc, start);
  }

  // Frame `frame`'s files, all or none: on a failed write (a full disk) the frame's files are
  // removed again and the Error goes on; the .usda's frames file cuts its partial frame itself.
  void write(int frame, double t, const std::vector<Vec3>& x) {
    const int png_count = png_count_;
    const std::size_t thumbs = thumbs_.size();
    try {
      write_files(frame, t, x);
    } catch (const Error&) {
      png_count_ = png_count;
      thumbs_.resize(thumbs);
      std::error_code ec;
      if (!sc_.output.frames.empty())
        std::filesystem::remove(out_ / "frames" / frame_name(frame, sc_.output.frames.c_str()), ec);
      std::filesystem::remove(out_ / "png" / frame_name(frame, "png"), ec);
      std::filesystem::remove(out_ / "png" / ("density_" + frame_name(frame, "png").substr(6)), ec);
      throw;
    }
  }

  // Room the end of the run needs on disk beyond the frames: the .usda's text before and after
  // its frames (a count per strand).
  std::uintmax_t finish_room() const {
    return usd_ ? 1024 + 12 * std::uintmax_t(file_strands_) : 0;
  }

 private:
  void write_files(int frame, double t, const std::vector<Vec3>& x) {
    const bool png = sc_.output.png_every > 0 && frame % sc_.output.png_every == 0;
    const bool files = !sc_.output.frames.empty() || usd_;
    Clock::time_point t0 = Clock::now();
    if (interp_ && frame > 0 && (png || (files && sc_.output.strands != "guides"))) {
      interp_->interpolate(x);
      interp_->render_strands(render_);
      push_out_of_head(render_, t);
    }
    render_s += seconds_since(t0);
    t0 = Clock::now();
    if (!sc_.output.frames.empty())
      write_strands(out_ / "frames" / frame_name(frame, sc_.output.frames.c_str()),
                    file_strands(x));
    frames_s += seconds_since(t0);
    t0 = Clock::now();
    if (png) {
      const kernels::RigidPose<double> pose = bridge::rigid_pose<double>(sc_.setup.head, t);
      TriangleMesh head = sc_.preview_head;
      for (Vec3& p : head.vertices) p = from_kernel(pose.apply(to_kernel(p)));
      const Image image = render(interp_ ? render_ : as_strands(x, strands_, vertices_),
                                 head.vertices.empty() ? nullptr : &head, view_);
      write_png(out_ / "png" / frame_name(frame, "png"), image);
      if (sc_.output.contact_sheet) thumbs_.push_back(shrink(image, 2));
      if (sc_.output.density_png)
        write_png(out_ / "png" / ("density_" + frame_name(frame, "png").substr(6)),
                  density_slice(x, sc_.setup.interaction.cell_size,
                                sc_.setup.head.center ? sc_.setup.head.center->x() : 0.0));
      ++png_count_;
    }
    png_s += seconds_since(t0);
    t0 = Clock::now();  // the .usda last: the one output a failed write cannot take back
    if (usd_) usd_->add_frame(frame, sc_.output.strands == "guides" ? x : file_strands(x).points);
    usd_s += seconds_since(t0);
  }

 public:
  // Completes the .usda and assembles the MP4; the files made go into `written`. Returns a
  // note when an asked-for MP4 could not be made. After a failed write (`write_failed`: a full
  // disk) only the .usda is made: ffmpeg would leave a partial MP4.
  std::string finish(std::vector<std::filesystem::path>& written, bool write_failed) {
    Clock::time_point t0 = Clock::now();
    if (usd_) {
      usd_->finish();
      written.push_back(out_ / "hair.usda");
    }
    usd_s += seconds_since(t0);
    t0 = Clock::now();
    std::string note;
    if (write_failed) {
      if (sc_.output.mp4 && png_count_ > 0)
        note = "a write failed: no MP4 (the PNG frames are in png/)";
      return note;
    }
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
    if (!thumbs_.empty()) {
      write_png(out_ / "contact_sheet.png", contact_sheet(thumbs_));
      written.push_back(out_ / "contact_sheet.png");
    }
    return note;
  }

  // What a checkpoint records of the outputs (FrameOutputs' `resumed`).
  nlohmann::json record() const {
    nlohmann::json r = {{"png_count", png_count_}};
    if (usd_) {
      const UsdaAnimationWriter::Progress p = usd_->progress();
      r["usd"] = {{"body_bytes", p.body_bytes}, {"first", p.first}, {"last", p.last}};
    }
    return r;
  }

  double frames_s = 0, usd_s = 0, png_s = 0, mp4_s = 0, render_s = 0;

 private:
  // Render strands follow the guides between them, not the head: where guides wrap tightly
  // around it, a strand between them can dip in. Its vertices inside a collider (the root edge
  // excepted) go to the collider's surface at the frame's head pose, as contacts put the guides'.
  void push_out_of_head(StrandSet& s, double t) const {
    if (colliders_.empty()) return;
    const kernels::RigidPose<double> pose = bridge::rigid_pose<double>(sc_.setup.head, t);
#pragma omp parallel for schedule(static, 256) num_threads(items_team_size(long(s.points.size())))
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(s.strand_count()); ++i)
      for (std::size_t a = s.offsets[std::size_t(i)] + 2; a < s.offsets[std::size_t(i) + 1]; ++a) {
        const kernels::Vector3<double> local = pose.apply_inverse(to_kernel(s.points[a]));
        for (const kernels::Collider<double>& c : colliders_) {
          const kernels::Contact<double> k = kernels::contact(c, local);
          if (k.inside) s.points[a] = from_kernel(pose.apply(k.surface));
        }
      }
  }

  // What frame files and the .usda hold (output.strands): the guides, the render strands (as
  // last interpolated) or both.
  StrandSet file_strands(const std::vector<Vec3>& x) const {
    if (sc_.output.strands == "render") return render_;
    if (sc_.output.strands == "both") return joined(as_strands(x, strands_, vertices_), render_);
    return as_strands(x, strands_, vertices_);
  }

  // One camera for the whole run: the start's box (hair and head), grown by a sixth.
  static RenderOptions preview_camera(const HairScene& sc, const std::vector<Vec3>& start) {
    RenderOptions view;
    view.width = sc.output.width;
    view.height = sc.output.height;
    view.azimuth_deg = sc.output.azimuth_deg;
    view.elevation_deg = sc.output.elevation_deg;
    view.supersample = 2;
    view.line_width_px = sc.render.strands > 0 ? sc.render.line_width_px : 1.0;
    view.up = -sc.setup.gravity.normalized();
    if (!view.up.allFinite()) view.up = Vec3::UnitY();
    // The hair's box without its outermost 1 % per side (a few stray strands would shrink the
    // rest in view), then the head's vertices near it (a bust's shoulders would too).
    Vec3 lo = Vec3::Constant(1e300), hi = -lo;
    if (!start.empty()) {
      std::vector<double> c(start.size());
      const std::size_t k = start.size() / 100, top = start.size() - 1 - k;
      for (int axis = 0; axis < 3; ++axis) {
        for (std::size_t i = 0; i < start.size(); ++i) c[i] = start[i][axis];
        std::nth_element(c.begin(), c.begin() + std::ptrdiff_t(k), c.end());
        lo[axis] = c[k];
        std::nth_element(c.begin(), c.begin() + std::ptrdiff_t(top), c.end());
        hi[axis] = c[top];
      }
    }
    const Vec3 near_lo = lo - 0.3 * (hi - lo), near_hi = hi + 0.3 * (hi - lo);
    for (const Vec3& p : sc.preview_head.vertices)
      if ((p.array() >= near_lo.array()).all() && (p.array() <= near_hi.array()).all())
        lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
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
  std::size_t file_strands_ = 0;  // strands in the frame files and the .usda
  RenderOptions view_;
  int png_count_ = 0;
  std::optional<GuideInterpolator> interp_;
  std::vector<kernels::Collider<double>> colliders_;  // render strands are pushed out of them
  StrandSet render_;                                  // the render strands last interpolated
  std::vector<Image> thumbs_;  // the previews at half size, for the contact sheet
};

// The worst of every frame's measures, and the per-frame trace for the summary.
struct RunMeasures {
  FrameStats worst;
  nlohmann::json trace = nlohmann::json::array();

  void add(int frame, double t, const FrameStats& f) {
    worst.max_stretch = std::max(worst.max_stretch, f.max_stretch);
    worst.max_penetration = std::max(worst.max_penetration, f.max_penetration);
    worst.max_root_drift = std::max(worst.max_root_drift, f.max_root_drift);
    worst.max_drift_from_groom = std::max(worst.max_drift_from_groom, f.max_drift_from_groom);
    worst.max_speed = std::max(worst.max_speed, f.max_speed);
    trace.push_back({{"frame", frame},
                     {"time_s", t},
                     {"kinetic_j", f.kinetic},
                     {"gravity_j", f.gravity},
                     {"max_stretch", f.max_stretch},
                     {"max_penetration_m", f.max_penetration},
                     {"max_drift_from_groom_m", f.max_drift_from_groom}});
  }
  nlohmann::json record() const {
    return {{"max_stretch", worst.max_stretch},
            {"max_penetration_m", worst.max_penetration},
            {"max_root_drift_m", worst.max_root_drift},
            {"max_drift_from_groom_m", worst.max_drift_from_groom},
            {"max_speed_m_s", worst.max_speed},
            {"trace", trace}};
  }
  void take_up(const CheckpointFields& r) {
    worst.max_stretch = r.number("measures.max_stretch");
    worst.max_penetration = r.number("measures.max_penetration_m");
    worst.max_root_drift = r.number("measures.max_root_drift_m");
    worst.max_drift_from_groom = r.number("measures.max_drift_from_groom_m");
    worst.max_speed = r.number("measures.max_speed_m_s");
    trace = r.array("measures.trace");
  }
};

// Why a run stopped early: its status ("diverged": a non-finite or guarded state; "failed": a
// solver gave up), where (strand, step, time) and why.
struct RunStop {
  std::string status, where, why;
};

// The guard's verdict on a frame's state: non-finite values, a stretch or a speed beyond the
// scene's guard (docs/scenes.md, `guard`). Names strand, vertex and the step reached.
std::optional<RunStop> check_state(const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                                   const FrameStats& f, const RunGuard& guard, int vertices,
                                   long steps, double t) {
  auto at = [&](std::size_t a) {
    char when[64];
    std::snprintf(when, sizeof when, ", by step %ld (t = %.6g s)", steps, t);
    return "strand " + std::to_string(a / vertices) + " (vertex " + std::to_string(a % vertices) +
           ")" + when;
  };
  if (const std::optional<std::size_t> a = first_non_finite(x, v))
    return RunStop{"diverged", at(*a), "non-finite position or velocity"};
  char why[160];
  if (f.max_stretch > guard.max_strain) {
    std::snprintf(why, sizeof why,
                  "edge stretched by %.3g of its rest length (guard.max_strain %g)", f.max_stretch,
                  guard.max_strain);
    return RunStop{"diverged", at(f.stretch_at), why};
  }
  if (f.max_speed > guard.max_speed) {
    std::snprintf(why, sizeof why, "vertex moving at %.3g m/s (guard.max_speed %g m/s)",
                  f.max_speed, guard.max_speed);
    return RunStop{"diverged", at(f.speed_at), why};
  }
  return std::nullopt;
}

// Removes what an earlier run wrote into the folder (frame files, PNGs, the .usda, the MP4, the
// summary, the checkpoint), so that a fresh run's outputs are its own: a shorter second run left
// the first one's later frames beside its own. Other files stay.
void remove_earlier_outputs(const std::filesystem::path& out) {
  std::error_code ec;
  for (const char* file : {"hair.usda", "hair.usda.frames.tmp", "hair.mp4", "summary.json",
                           "contact_sheet.png", kCheckpointFile})
    std::filesystem::remove(out / file, ec);
  for (const char* folder : {"frames", "png"}) {
    if (!std::filesystem::is_directory(out / folder, ec)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(out / folder, ec))
      if (entry.path().filename().string().rfind("frame_", 0) == 0 ||
          entry.path().filename().string().rfind("density_", 0) == 0)
        std::filesystem::remove(entry.path(), ec);
  }
}

// Room kept for the end of a run on a full disk: a file of allocated blocks in the output folder
// (.hairsim.reserve), given back when a write fails, so that the last summary.json and the .usda
// of the frames already written still fit (each is written beside its old self, then renamed).
class SpaceReserve {
 public:
  explicit SpaceReserve(std::filesystem::path file) : file_(std::move(file)) {}
  ~SpaceReserve() { release(); }
  SpaceReserve(const SpaceReserve&) = delete;
  SpaceReserve& operator=(const SpaceReserve&) = delete;

  // At least `bytes` kept; twice that taken when it grows, so that it seldom does. Throws Error
  // naming the file when the disk has not the room.
  void keep(std::uintmax_t bytes) {
    if (bytes <= size_) return;
    const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(file_.string(), std::string("cannot write: ") + std::strerror(errno));
    const int err = ::posix_fallocate(fd, 0, off_t(2 * bytes));
    ::close(fd);
    if (err != 0)
      throw Error(file_.string(),
                  std::string("cannot keep room for the run's end: ") + std::strerror(err));
    size_ = 2 * bytes;
  }
  void release() {
    std::error_code ec;
    std::filesystem::remove(file_, ec);
    size_ = 0;
  }

 private:
  std::filesystem::path file_;
  std::uintmax_t size_ = 0;
};

// One hairstyle run: the simulator stepped frame by frame, every frame's state checked, outputs
// written as frames come, the summary rewritten after each (status "running"), checkpoints.
class HairRun {
 public:
  HairRun(const HairScene& sc, const std::filesystem::path& out, const RunControl& control)
      : sc_(sc), out_(out), control_(control) {}

  // A sag-free setup that could not hold every strand says so on the run's stream: those strands
  // sag from the first step, which a user who asked for the groom to stay would not expect.
  void note_strands_not_held() const {
    if (!control_.progress) return;
    for (const auto& [name, value] : sim_->setup_measures())
      if (name == "rest_strands_not_held" && value > 0)
        *control_.progress << "notice: " << value << " of " << sim_->strands()
                           << " strands cannot be held as groomed (held, they would buckle, or "
                              "no rest shape balances them: docs/architecture.md, \"Sag-free rest "
                              "shapes\"); they keep their groomed rest and sag\n"
                           << std::flush;
  }

  HairRunResult run() {
    try {
      // The setup's progress (the reduced models' fits) on the run's stream.
      const SetupProgressScope setup_progress(
          control_.progress ? SetupProgress([&](const std::string& line) {
            *control_.progress << line << "\n" << std::flush;
          })
                            : SetupProgress());
      sim_ = Simulator::create(sc_.setup, sc_.options);
    } catch (const RunFailure& e) {  // a setup that failed on good input (a fit): exit 1
      write_setup_failure(e);
      throw;
    }
    vertices_ = sim_->vertices();
    device_ = sim_->device();
    note_strands_not_held();
    std::filesystem::create_directories(out_);
    std::vector<Vec3> x, v;
    sim_->positions(x);
    sim_->velocities(v);
    meter_.emplace(sc_, x, vertices_);
    std::optional<Checkpoint> checkpoint;
    std::optional<CheckpointFields> resumed;
    if (control_.resume) {
      checkpoint = read_checkpoint(out_ / kCheckpointFile);
      resumed.emplace(out_ / kCheckpointFile, checkpoint->run);
      take_up(*resumed, checkpoint->simulator);
    } else {
      remove_earlier_outputs(out_);
    }
    outputs_.emplace(sc_, out_, x, sim_->strands(), vertices_, resumed ? &*resumed : nullptr,
                     frames_done_);
    resumed.reset();
    checkpoint.reset();  // its state can be large
    counts_ = sim_->counts();
    setup_s_ += seconds_since(run_start_);
    writing([&] { reserve_.keep(reserve_bytes()); });
    if (!control_.resume && !stop_) {
      const FrameStats f = meter_->measure(x, v, 0.0);
      if (writing([&] { outputs_->write(0, 0.0, x); })) measures_.add(0, 0.0, f);
      if (!stop_) stop_ = check_state(x, v, f, sc_.guard, vertices_, 0, 0.0);
    }
    Progress progress(control_, sc_.frames);
    if (!stop_ && !stop_requested() && writing([&] { write_summary("running"); }))
      run_frames(x, v, progress);
    interrupted_ = !stop_ && frames_done_ < sc_.frames;
    if (interrupted_) progress.interrupted();
    if (interrupted_ && sc_.output.checkpoint_every > 0) writing([&] { write_checkpoint_now(); });
    return finish();
  }

 private:
  bool stop_requested() const { return control_.stop && control_.stop->load(); }

  // Runs `write`, one of the run's writes. A failed one (a full disk, a folder gone) stops the
  // run: status "failed" naming the file, exit 1 (the input was good). Returns whether it wrote.
  template <class Write>
  bool writing(Write write) {
    try {
      write();
      return true;
    } catch (const RunFailure&) {
      throw;
    } catch (const Error& e) {
      stop_ = RunStop{"failed", e.where(), e.why()};  // the file, and why it was not written
    } catch (const std::filesystem::filesystem_error& e) {
      stop_ = RunStop{"failed", e.path1().string(), "cannot write: " + e.code().message()};
    }
    write_failed_ = true;
    return false;
  }

  // The room the run's end needs (SpaceReserve): the summary written last time, the .usda's
  // text around its frames, and 64 KiB for the summary's growth and the fields of a stop.
  std::uintmax_t reserve_bytes() const {
    return summary_bytes_ + (outputs_ ? outputs_->finish_room() : 0) + (std::uintmax_t(1) << 16);
  }

  // Frame `frame`'s outputs, then its measures, checkpoint and summary. False when a write
  // failed: the run stops, the frame's own files removed (frames 0 to the one before stay whole).
  bool record_frame(int frame, const FrameStats& f, const std::vector<Vec3>& x) {
    if (!writing([&] { outputs_->write(frame, sim_->time(), x); })) return false;
    measures_.add(frame, sim_->time(), f);
    frames_done_ = frame;
    return writing([&] {
      if (sc_.output.checkpoint_every > 0 && frame % sc_.output.checkpoint_every == 0)
        write_checkpoint_now();
      write_summary("running");
      reserve_.keep(reserve_bytes());
    });
  }

  void run_frames(std::vector<Vec3>& x, std::vector<Vec3>& v, Progress& progress) {
    for (int frame = frames_done_ + 1; frame <= sc_.frames; ++frame) {
      const Clock::time_point frame_start = Clock::now();
      // The state at the frame's start, for the checkpoint of a stop inside it.
      if (sc_.output.checkpoint_every > 0) frame_start_state_ = sim_->save_state();
      try {
        for (int k = 0; k < sc_.steps_per_frame; ++k) {
          sim_->step();
          if (stop_requested() && stop_abandons_frame()) {
            if (sc_.output.checkpoint_every > 0) sim_->restore_state(frame_start_state_);
            return;
          }
        }
        counts_ = sim_->counts();  // where cuda reports a failed solve (it runs ahead)
      } catch (const RunFailure& e) {
        stop_ = RunStop{"failed", e.where(), e.why()};
        counts_ = sim_->counts_so_far();            // the failed solves among them
        simulate_s_ += seconds_since(frame_start);  // the summary says how long it took to fail
        return;
      }
      const Clock::time_point t0 = Clock::now();
      sim_->positions(x);
      sim_->velocities(v);
      readback_s_ += seconds_since(t0);
      simulate_s_ += std::chrono::duration<double>(t0 - frame_start).count();
      const FrameStats f = meter_->measure(x, v, sim_->time());
      if ((stop_ = check_state(x, v, f, sc_.guard, vertices_, sim_->steps(), sim_->time()))) return;
      if (!record_frame(frame, f, x)) return;
      progress.frame_done(frame, sim_->time(), 1e3 * seconds_since(frame_start));
      if (stop_requested()) return;
    }
  }

  // A stop (Ctrl-C, SIGTERM) seen between the steps of a frame: the frame is finished if it can
  // be within kStopGraceSeconds of the stop, else left unwritten (a slow model's frame can take
  // minutes): the run ends at its last whole frame, whose state the checkpoint at the stop holds.
  bool stop_abandons_frame() {
    constexpr double kStopGraceSeconds = 1.0;
    if (!stop_seen_) stop_seen_ = Clock::now();
    return seconds_since(*stop_seen_) > kStopGraceSeconds;
  }

  // The state after frames_done_ and the run's bookkeeping, for --resume.
  void write_checkpoint_now() {
    const Clock::time_point t0 = Clock::now();
    Checkpoint c;
    c.run = {{"fingerprint", sc_.fingerprint},
             {"model", sc_.options.model},
             {"backend", to_string(sc_.options.backend)},
             {"precision", to_string(sc_.options.precision)},
             {"strands", sim_->strands()},
             {"vertices", vertices_},
             {"frame", frames_done_},
             {"measures", measures_.record()},
             {"outputs", outputs_->record()},
             {"wall_time_s", wall_times()}};
    c.simulator = sim_->save_state();
    write_checkpoint(out_ / kCheckpointFile, c);
    checkpoint_s_ += seconds_since(t0);
    last_checkpoint_ = frames_done_;
  }

  // Restores a checkpoint written by this scene (Error naming --resume otherwise), every field
  // of its record checked (Error naming the file and the field).
  void take_up(const CheckpointFields& r, const std::string& state) {
    const std::string file = r.file().string();
    if (r.text("fingerprint") != sc_.fingerprint)
      throw Error("--resume", file +
                                  " was written by another scene (or other --set, --model, "
                                  "--backend, --precision options)");
    auto differs = [&](const char* key, const std::string& saved, const std::string& now) {
      if (saved != now)
        throw Error("--resume", file + " has " + key + " " + saved + ", this run " + now);
    };
    differs("model", r.text("model"), sc_.options.model);
    differs("backend", r.text("backend"), to_string(sc_.options.backend));
    differs("precision", r.text("precision"), to_string(sc_.options.precision));
    differs("strands", std::to_string(r.integer("strands", 1, kMaxInteger)),
            std::to_string(sim_->strands()));
    differs("vertices", std::to_string(r.integer("vertices", 1, kMaxInteger)),
            std::to_string(vertices_));
    frames_done_ = int(r.integer("frame", 0, sc_.frames));  // within the frames asked
    naming_file(file, [&] { sim_->restore_state(state); });
    if (sim_->steps() != long(frames_done_) * sc_.steps_per_frame)
      r.fail("frame", std::to_string(frames_done_) + " frames are " +
                          std::to_string(long(frames_done_) * sc_.steps_per_frame) +
                          " steps, the saved state has taken " + std::to_string(sim_->steps()));
    measures_.take_up(r);
    if (r.array("measures.trace").size() != std::size_t(frames_done_) + 1)
      r.fail("measures.trace",
             "must hold one entry per frame, 0 to " + std::to_string(frames_done_));
    setup_s_ = r.number("wall_time_s.setup");
    simulate_s_ = r.number("wall_time_s.simulate");
    readback_s_ = r.number("wall_time_s.readback");
    checkpoint_s_ = r.number("wall_time_s.checkpoint");
    resumed_from_ = frames_done_;
    last_checkpoint_ = frames_done_;
  }

  nlohmann::json wall_times() const {
    const FrameOutputs& o = *outputs_;
    return {{"setup", setup_s_},
            {"simulate", simulate_s_},
            {"readback", readback_s_},
            {"frame_files", o.frames_s},
            {"png", o.png_s},
            {"render_strands", o.render_s},
            {"usd", o.usd_s},
            {"mp4", o.mp4_s},
            {"checkpoint", checkpoint_s_},
            {"total", seconds_since(run_start_)}};
  }

  // The summary of a run whose simulator could not be set up: "failed", where and why, no frame.
  void write_setup_failure(const RunFailure& e) {
    std::filesystem::create_directories(out_);
    if (!control_.resume) remove_earlier_outputs(out_);
    const nlohmann::json s = {{"status", "failed"},
                              {"model", sc_.options.model},
                              {"backend", to_string(sc_.options.backend)},
                              {"precision", to_string(sc_.options.precision)},
                              {"hair", sc_.hair_source},
                              {"strands", sc_.setup.strands.strand_count()},
                              {"frames", 0},
                              {"frames_asked", sc_.frames},
                              {"wall_time_s", {{"setup", seconds_since(run_start_)}}},
                              {"failed_at", "setup, " + e.where()},
                              {"reason", e.why()}};
    io::write_file_atomically(
        out_ / "summary.json",
        s.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }

  // summary.json (docs/scenes.md lists its fields), written atomically.
  nlohmann::json write_summary(const std::string& status) {
    const StepCounters& counts = counts_;
    const long steps = sim_->steps();
    nlohmann::json s;
    s["status"] = status;
    s["model"] = sc_.options.model;
    s["backend"] = to_string(sc_.options.backend);
    s["device"] = device_;
    s["precision"] = to_string(sc_.options.precision);
    s["integrator"] = to_string(sc_.setup.integrator);
    s["hair"] = sc_.hair_source;
    s["strands"] = sim_->strands();
    s["vertices_per_strand"] = vertices_;
    s["frames"] = frames_done_;
    s["frames_asked"] = sc_.frames;
    s["fps"] = sc_.fps;
    s["steps"] = steps;
    s["dt_s"] = sc_.setup.dt;
    s["simulated_time_s"] = double(frames_done_) * sc_.steps_per_frame * sc_.setup.dt;
    s["wall_time_s"] = wall_times();
    s["svu_per_second"] = simulate_s_ > 0
                              ? double(sim_->strands()) * vertices_ * double(frames_done_) *
                                    sc_.steps_per_frame / simulate_s_
                              : 0.0;
    s["max_stretch"] = measures_.worst.max_stretch;
    s["max_penetration_m"] = measures_.worst.max_penetration;
    s["max_root_drift_m"] = measures_.worst.max_root_drift;
    s["max_drift_from_groom_m"] = measures_.worst.max_drift_from_groom;
    s["max_speed_m_s"] = measures_.worst.max_speed;
    s["contacts_per_step"] = steps > 0 ? double(counts["contacts"]) / double(steps) : 0.0;
    s["vertices_pushed_out"] = sc_.pushed_out;
    if (sc_.render.strands > 0)
      s["render"] = {{"strands", sc_.render.strands},
                     {"interpolation", to_string(sc_.render.options.interpolation)},
                     {"files_hold", sc_.output.strands}};
    if (sc_.setup.interaction.enabled) {
      const InteractionStats st = sim_->interaction_stats();
      const Interaction& in = sc_.setup.interaction;
      const double total = st.stage_seconds + st.strand_seconds;
      s["interaction"] = {
          {"cell_size_m", in.cell_size},
          {"friction_per_s", in.friction},
          {"volume_stiffness_per_s", in.volume_stiffness},
          {"iterations", in.iterations},
          {"target_density_kg_m3", st.target_density},
          {"time_share", total > 0 ? st.stage_seconds / total : 0.0},
          {"stage_ms_per_step", st.steps > 0 ? 1e3 * st.stage_seconds / double(st.steps) : 0.0},
          {"strand_ms_per_step", st.steps > 0 ? 1e3 * st.strand_seconds / double(st.steps) : 0.0},
          {"occupied_cells", st.occupied_cells},
          {"mean_occupied_cells", st.mean_occupied_cells}};
    }
    const Model& model = find_model(sc_.options.model);
    if (model.summary) {  // the model's own fields
      const double strand_steps = double(sim_->strands()) * double(steps);
      s["solver"] = model.summary(sc_.setup, sc_.options, counts, strand_steps);
    }
    s["setup"]["rest"] = to_string(sc_.setup.rest);
    for (const auto& [name, value] : sim_->setup_measures()) s["setup"][name] = value;
    s["energy"] = measures_.trace;
    if (sc_.output.checkpoint_every > 0 || resumed_from_ >= 0)
      s["checkpoint"] = {{"every", sc_.output.checkpoint_every},
                         {"last_frame", last_checkpoint_},
                         {"resumed_from_frame", resumed_from_}};
    if (!sc_.notice.empty()) s["notice"] = sc_.notice;
    if (!mp4_note_.empty()) s["mp4_note"] = mp4_note_;
    if (stop_) {
      s[stop_->status == "diverged" ? "diverged_at" : "failed_at"] = stop_->where;
      s["reason"] = stop_->why;
    }
    const std::string text = s.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    io::write_file_atomically(out_ / "summary.json", text);
    summary_bytes_ = text.size();
    return s;
  }

  HairRunResult finish() {
    HairRunResult result;
    reserve_.release();  // its room is for what follows
    writing([&] { mp4_note_ = outputs_->finish(result.written, write_failed_); });
    result.interrupted = interrupted_ && !stop_;
    try {
      result.summary = write_summary(stop_          ? stop_->status
                                     : interrupted_ ? "interrupted"
                                                    : "complete");
    } catch (const Error& e) {  // good input: a failed run (exit 1), not bad input
      throw RunFailure(e.where(), e.why() + (stop_ ? " (the run had stopped: " + stop_->where +
                                                         ": " + stop_->why + ")"
                                                   : ""));
    }
    result.written.push_back(out_ / "summary.json");
    if (sc_.output.checkpoint_every > 0 && last_checkpoint_ >= 0)
      result.written.push_back(out_ / kCheckpointFile);
    if (!mp4_note_.empty() && control_.progress)
      *control_.progress << "notice: " << mp4_note_ << "\n";
    if (stop_)
      throw RunFailure(stop_->where, stop_->why + "; frames 0 to " + std::to_string(frames_done_) +
                                         " are written, summary.json says '" + stop_->status + "'");
    return result;
  }

  const HairScene& sc_;
  std::filesystem::path out_;
  const RunControl& control_;
  const Clock::time_point run_start_ = Clock::now();
  std::unique_ptr<Simulator> sim_;
  int vertices_ = 0;
  std::optional<FrameMeter> meter_;
  std::optional<FrameOutputs> outputs_;
  RunMeasures measures_;
  StepCounters counts_;  // read once per frame (a failed solve leaves the last ones read)
  std::string device_;
  int frames_done_ = 0;
  int resumed_from_ = -1, last_checkpoint_ = -1;
  double setup_s_ = 0, simulate_s_ = 0, readback_s_ = 0, checkpoint_s_ = 0;
  std::optional<RunStop> stop_;
  bool interrupted_ = false;
  bool write_failed_ = false;      // stop_ is a failed write
  std::size_t summary_bytes_ = 0;  // the summary last written
  SpaceReserve reserve_{out_ / ".hairsim.reserve"};
  std::optional<Clock::time_point> stop_seen_;  // when a stop was first seen mid-frame
  std::string frame_start_state_;               // with checkpoints: the frame's start state
  std::string mp4_note_;
};

// One run per output folder: an exclusive lock on <out>/.hairsim.lock holding the owner's
// process id, taken before the run and released when it ends, however it ends (the kernel drops
// a killed process's flock). flock locks an open file, not a process: a second run from the same
// process (a Python thread) is refused as well. The file stays (removing it would let a third
// run lock a fresh file while a second still holds the old one).
class OutputLock {
 public:
  OutputLock(const std::filesystem::path& out, const std::string& where)
      : path_(out / ".hairsim.lock") {
    std::filesystem::create_directories(out);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(where, "cannot create the lock " + path_.string());
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char owner[32] = {};
      const ssize_t n = ::pread(fd_, owner, sizeof owner - 1, 0);
      ::close(fd_);
      throw Error(where, out.string() + " is in use by another run (process " +
                             std::string(owner, n > 0 ? std::size_t(n) : 0) + ", lock " +
                             path_.string() + ")");
    }
    const std::string pid = std::to_string(::getpid());
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
      ::close(fd_);
      throw Error(where, "cannot write the lock " + path_.string());
    }
  }
  ~OutputLock() { ::close(fd_); }  // releases the lock
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace

bool writable_folder(const std::filesystem::path& folder) {
  const std::filesystem::path probe = folder / ".hairsim-write-test";
  if (!std::ofstream(probe)) return false;
  std::error_code ec;
  std::filesystem::remove(probe, ec);
  return true;
}

void check_output_folder(const std::filesystem::path& out, const std::string& where) {
  std::error_code ec;
  std::filesystem::path existing = std::filesystem::absolute(out, ec);
  while (!existing.empty() && !std::filesystem::exists(existing, ec))
    existing = existing.parent_path();
  if (!std::filesystem::is_directory(existing, ec))
    throw Error(where, existing.string() + " exists and is not a folder");
  if (!writable_folder(existing)) throw Error(where, "cannot write into " + existing.string());
}

HairRunResult run_hair_scene(const HairScene& sc, const std::filesystem::path& out,
                             const RunControl& control) {
  check_output_folder(out, control.folder_option);
  std::error_code ec;
  const bool new_folder = !std::filesystem::exists(out, ec);
  const OutputLock lock(out, control.folder_option);
  if (control.started) control.started();
  try {
    return HairRun(sc, out, control).run();
  } catch (const RunFailure&) {
    throw;
  } catch (const Error&) {
    // Bad input found before the run wrote anything (a model's own settings check, a damaged
    // checkpoint): a folder this run made goes with it (no partial output). Failed writes are
    // RunFailures and keep what was written.
    if (new_folder) std::filesystem::remove_all(out, ec);
    throw;
  }
}

}  // namespace hairsim::engine
