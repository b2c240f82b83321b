// hairsim command-line interface. Bad input: one line on stderr, exit code 2, no output file.
// A failed run for any other reason: exit code 1.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "engine/bench.hpp"
#include "engine/devices.hpp"
#include "engine/hair_run.hpp"
#include "engine/hair_scene.hpp"
#include "engine/model.hpp"
#include "engine/threads.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/io.hpp"
#include "hairsim/render.hpp"
#include "io/file_bytes.hpp"
#include "scene/scene_document.hpp"

namespace hairsim {
namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitFailure = 1;
// Ctrl-C (SIGINT) or SIGTERM during a hairstyle run: stop after the current frame, or after a
// step where the frame is not done a second after the signal (engine/hair_run.cpp); outputs
// complete; a second signal ends the process. Exit 128 + the signal, the shell's convention.
std::atomic<bool> g_stop_requested{false};
std::atomic<int> g_stop_signal{0};
extern "C" void request_stop(int signal) {
  g_stop_requested = true;
  g_stop_signal = signal;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

StrandSet load(const std::string& path, const std::string& units) {
  ReadReport report;
  StrandSet s = read_strands(path, {parse_length_unit(units)}, &report);
  if (report.skipped_degenerate_strands)
    std::cerr << "hairsim: warning: " << path << ": skipped " << report.skipped_degenerate_strands
              << " degenerate strands (fewer than 2 points)\n";
  return s;
}

nlohmann::json vec_json(const Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

int cmd_info(const std::string& path, const std::string& units, bool json) {
  const StrandSet s = load(path, units);
  const StrandStatistics st = statistics(s);
  const char* format = to_string(strand_format_from_path(path));
  std::vector<std::string> attributes;
  if (s.has_thickness()) attributes.push_back("thickness");
  if (s.has_transparency()) attributes.push_back("transparency");
  if (s.has_colors()) attributes.push_back("colors");
  if (json) {
    nlohmann::json j = {
        {"file", path},
        {"format", format},
        {"file_units", units},
        {"strands", st.strand_count},
        {"points", st.point_count},
        {"vertices_per_strand",
         {{"min", st.vertices_min}, {"mean", st.vertices_mean}, {"max", st.vertices_max}}},
        {"length_m",
         {{"min", st.length_min}, {"median", st.length_median}, {"max", st.length_max}}},
        {"bbox_m", {{"min", vec_json(st.bbox_min)}, {"max", vec_json(st.bbox_max)}}},
        {"attributes", attributes}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("file        %s\nformat      %s\nfile units  %s (shown in m)\n", path.c_str(), format,
              units.c_str());
  std::printf("strands     %zu\npoints      %zu\n", st.strand_count, st.point_count);
  std::printf("vertices    min %zu  mean %.4g  max %zu\n", st.vertices_min, st.vertices_mean,
              st.vertices_max);
  std::printf("length      min %.6g  median %.6g  max %.6g m\n", st.length_min, st.length_median,
              st.length_max);
  std::printf("bbox        (%.6g, %.6g, %.6g) .. (%.6g, %.6g, %.6g) m\n", st.bbox_min.x(),
              st.bbox_min.y(), st.bbox_min.z(), st.bbox_max.x(), st.bbox_max.y(), st.bbox_max.z());
  std::string attr;
  for (const auto& a : attributes) attr += (attr.empty() ? "" : ", ") + a;
  std::printf("attributes  %s\n", attr.empty() ? "none" : attr.c_str());
  return 0;
}

struct ConvertArgs {
  std::string in, out, units = "m", out_units;
  int resample = 0;
  bool ascii = false;
};

int cmd_convert(const ConvertArgs& a) {
  StrandSet s = load(a.in, a.units);
  if (a.resample != 0) s = resample(s, a.resample);
  WriteOptions w;
  w.units = parse_length_unit(a.out_units.empty() ? a.units : a.out_units, "--out-units");
  w.ply_ascii = a.ascii;
  write_strands(a.out, s, w);
  std::cout << a.out << "\n";
  return 0;
}

struct RenderArgs {
  std::string in, out, head, units = "m", up = "y";
  RenderOptions options;
};

int cmd_render(const RenderArgs& a) {
  if (std::filesystem::path(a.out).extension() != ".png")
    throw Error(a.out, "output must be a .png file");
  RenderOptions options = a.options;
  for (const auto& [name, value] : {std::pair{"--azimuth", options.azimuth_deg},
                                    std::pair{"--elevation", options.elevation_deg},
                                    std::pair{"--line-width", options.line_width_px}})
    if (!std::isfinite(value)) throw Error(name, "must be a finite number");
  options.up = parse_axis(a.up);
  const StrandSet s = load(a.in, a.units);
  TriangleMesh head;
  if (!a.head.empty()) head = read_mesh(a.head, {parse_length_unit(a.units)});
  const Image img = render(s, a.head.empty() ? nullptr : &head, options);
  write_png(a.out, img);
  std::cout << a.out << "\n";
  return 0;
}

struct GenerateArgs {
  HairstyleParams params;
  std::string style = "straight", out, head_out, units = "m";
};

int cmd_generate(GenerateArgs a) {
  a.params.style = parse_hair_style(a.style);
  const WriteOptions w{parse_length_unit(a.units), false};
  strand_format_from_path(a.out);  // reject a bad extension before the work
  const StrandSet s = generate_hairstyle(a.params);
  write_strands(a.out, s, w);
  std::cout << a.out << "\n";
  if (!a.head_out.empty()) {
    write_mesh(a.head_out, ellipsoid_mesh(a.params.head_radii), w);
    std::cout << a.head_out << "\n";
  }
  return 0;
}

struct RunArgs {
  std::string scene, out, resume, final_file, final_units = "m", backend, model, precision;
  std::string frames, duration;  // kept as text: they become --set overrides
  std::vector<std::string> overrides;
};

nlohmann::json load_scene_document(const std::string& path,
                                   const std::vector<std::string>& overrides) {
  const std::vector<char> bytes = io::read_file_bytes(path);
  return scene::parse_scene_document(std::string_view(bytes.data(), bytes.size()), path, overrides);
}

// The run's output folder (--out or --resume, default out/<scene name>).
std::filesystem::path output_folder(const RunArgs& a) {
  if (!a.resume.empty()) return a.resume;
  return a.out.empty() ? std::filesystem::path("out") / std::filesystem::path(a.scene).stem()
                       : std::filesystem::path(a.out);
}

// --final's folder must exist and take a file (checked before the run).
void check_final_folder(const RunArgs& a) {
  if (a.final_file.empty()) return;
  const std::filesystem::path folder =
      std::filesystem::absolute(std::filesystem::path(a.final_file)).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw Error("--final", "the folder " + folder.string() + " does not exist");
  if (!engine::writable_folder(folder))
    throw Error("--final", "cannot write into " + folder.string());
}

// --final and --final-units checked before a single-rod run, so bad ones write nothing.
void check_final_options(const RunArgs& a) {
  parse_length_unit(a.final_units, "--final-units");
  if (!a.final_file.empty()) strand_format_from_path(a.final_file);
}

// A hairstyle scene (docs/scenes.md): parsed completely (files included) before anything is
// written; progress on stdout; Ctrl-C stops after the current frame.
int run_hair(const RunArgs& a, const nlohmann::json& doc) {
  if (!a.final_file.empty())
    throw Error("--final", "is for single-rod scenes; hairstyle scenes write output.frames");
  if (!a.resume.empty() && !a.out.empty() &&
      std::filesystem::absolute(a.out) != std::filesystem::absolute(a.resume))
    throw Error("--out", "--resume continues in its own folder; give one of them");
  engine::HairScene sc = naming_file(a.scene, [&] {
    return engine::parse_hair_scene(doc, std::filesystem::path(a.scene).parent_path());
  });
  const std::filesystem::path out = output_folder(a);
  g_stop_requested = false;
  engine::RunControl control{&std::cout, isatty(STDOUT_FILENO) == 1, &g_stop_requested,
                             !a.resume.empty(), "--out"};
  // The folder checked and locked (engine::run_hair_scene, as for Python): the run's
  // description, and Ctrl-C from here on stops after the current frame.
  control.started = [&] {
    if (!sc.notice.empty()) std::cout << "notice: " << sc.notice << "\n";
    if (sc.pushed_out > 0)
      std::cout << "notice: moved " << sc.pushed_out
                << " vertices of the groom out of the colliders before the run (hair.push_out)\n";
    std::cout << sc.setup.strands.strand_count() << " strands, " << sc.frames << " frames at "
              << sc.fps << " fps, " << sc.steps_per_frame << " steps per frame, backend "
              << engine::to_string(sc.options.backend) << " ("
              << engine::to_string(sc.options.precision) << ")\n";
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    if (control.resume) std::cout << "resuming from " << (out / "checkpoint.bin").string() << "\n";
  };
  auto default_signals = [] {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  };
  engine::HairRunResult result;
  try {
    result = engine::run_hair_scene(sc, out, control);
  } catch (...) {
    default_signals();
    throw;
  }
  default_signals();
  for (const auto& file : result.written) std::cout << file.string() << "\n";
  if (!sc.output.frames.empty()) std::cout << (out / "frames").string() << "/\n";
  if (sc.output.png_every > 0) std::cout << (out / "png").string() << "/\n";
  if (result.interrupted) {
    std::cerr << "hairsim: interrupted after frame " << result.summary["frames"].get<int>()
              << "; everything written so far is complete"
              << (sc.output.checkpoint_every > 0 ? " (continue with --resume " + out.string() + ")"
                                                 : std::string())
              << "\n";
    return 128 + (g_stop_signal ? g_stop_signal.load() : SIGINT);
  }
  return 0;
}

// Writes a single-rod scene's summary.json, trace.csv and --final file.
void write_rod_outputs(const RunArgs& a, const scene::SceneRun& result,
                       const StrandSet& final_rod) {
  const std::filesystem::path out = output_folder(a);
  std::filesystem::create_directories(out);
  io::write_file_atomically(out / "summary.json", result.summary.dump(2) + "\n");
  std::cout << (out / "summary.json").string() << "\n";
  if (!result.trace_csv.empty()) {
    io::write_file_atomically(out / "trace.csv", result.trace_csv);
    std::cout << (out / "trace.csv").string() << "\n";
  }
  if (!a.final_file.empty()) {
    write_strands(a.final_file, final_rod,
                  {parse_length_unit(a.final_units, "--final-units"), false});
    std::cout << a.final_file << "\n";
  }
}

// A single-rod scene of the model its "model" names (default: the table's first).
int run_rod(const RunArgs& a, const nlohmann::json& doc) {
  if (!a.resume.empty()) throw Error("--resume", "is for hairstyle scenes");
  std::unique_ptr<engine::RodScene> rod = naming_file(a.scene, [&] {
    return engine::parse_rod_scene(doc, std::filesystem::path(a.scene).parent_path());
  });
  check_final_options(a);
  check_final_folder(a);
  engine::check_output_folder(output_folder(a), "--out");
  const scene::SceneRun result = naming_file(a.scene, [&] { return rod->run(); });
  write_rod_outputs(a, result, rod->final_strands());
  return 0;
}

int cmd_run(const RunArgs& a) {
  if (!a.frames.empty() && !a.duration.empty())
    throw Error("--duration", "give --frames or --duration, not both");
  std::vector<std::string> overrides = a.overrides;
  // The options are --set overrides of the scene's own fields.
  if (!a.backend.empty()) overrides.push_back("backend=" + a.backend);
  if (!a.model.empty()) overrides.push_back("model=" + a.model);
  if (!a.precision.empty()) overrides.push_back("precision=" + a.precision);
  if (!a.frames.empty()) overrides.push_back("time.frames=" + a.frames);
  if (!a.duration.empty()) overrides.push_back("time.duration=" + a.duration);
  // cuda asked for where it cannot run: the user's request cannot be met (exit 2), said before
  // the scene's files are read, naming the option or the scene's field.
  const std::string no_cuda = engine::cuda_unavailable_reason();
  if (a.backend == "cuda" && !no_cuda.empty()) throw Error("--backend", "cuda: " + no_cuda);
  nlohmann::json doc = load_scene_document(a.scene, overrides);
  if (doc.is_object() && doc.value("backend", nlohmann::json()) == "cuda" && !no_cuda.empty())
    throw Error(a.scene + ": backend", "cuda: " + no_cuda);
  // --frames replaces the scene's duration and --duration its frame count.
  if (doc.contains("time") && doc["time"].is_object()) {
    if (!a.frames.empty()) doc["time"].erase("duration");
    if (!a.duration.empty()) doc["time"].erase("frames");
  }
  if (engine::is_hair_scene(doc)) return run_hair(a, doc);
  return run_rod(a, doc);
}

// The model table: "name<TAB>integrators<TAB>description" per model, the default first; with a
// backend, only the models that simulate hairstyles on it.
int cmd_models(const std::string& backend) {
  for (const engine::Model& m : engine::models()) {
    if (!backend.empty() && !engine::runs_on(m, engine::parse_backend(backend))) continue;
    std::string integrators;
    for (const engine::Integrator i : m.integrators) {
      if (!integrators.empty()) integrators += ',';
      integrators += engine::to_string(i);
    }
    std::cout << m.name << "\t" << integrators << "\t" << m.description << "\n";
  }
  return 0;
}

struct BenchArgs {
  std::string model = engine::default_model();
  std::vector<std::string> backends{"cpu"}, precisions{"float"}, integrators, collisions{"off"};
  std::vector<int> strands{1000, 10000}, vertices{32};
  int steps = 20;
  int distinct_strands = 0;  // 0: every strand generated
  double row_budget = 0;     // s; 0: none
  double time_limit = 0;     // s for the whole command; 0: none
  std::string json;
};

std::string mean_text(double mean) {
  if (!std::isfinite(mean)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", mean);
  return text;
}

void print_bench_header(const engine::Model& model) {
  std::printf("%-8s %-9s %-6s %-10s %-4s %8s %4s %10s %12s", "model", "backend", "prec",
              "integrator", "coll", "strands", "vert", "ms/step", "SVU/s");
  for (const std::string& column : model.bench_columns) std::printf(" %7s", column.c_str());
  std::printf("  %s\n", "device");
}

void print_bench_row(const engine::BenchResult& r) {
  const engine::BenchCase& c = r.config;
  std::printf("%-8s %-9s %-6s %-10s %-4s %8d %4d", c.model.c_str(), c.backend.c_str(),
              c.precision.c_str(), c.integrator.c_str(), c.collisions ? "on" : "off", c.strands,
              c.vertices);
  if (r.ran) {
    std::printf(" %10.3f %12.3e", r.ms_per_step, r.svu_per_second);
    for (const engine::BenchColumn& column : r.columns)
      std::printf(" %7s", mean_text(column.value).c_str());
    std::printf("  %s\n", r.device.c_str());
  } else {
    std::printf("  %s%s\n", r.failed ? "" : "skipped: ", r.note.c_str());
  }
  std::fflush(stdout);
}

// What a bench may spend (--row-budget, --time-limit): why a case is skipped, or "" to run it.
// A series is the cases that differ in strand count only; its last case that ran predicts the
// next (engine::predict_seconds).
class BenchBudget {
 public:
  BenchBudget(double row_budget, double time_limit)
      : row_budget_(row_budget),
        time_limit_(time_limit),
        start_(std::chrono::steady_clock::now()) {}

  std::string skip_reason(const engine::BenchCase& c) const {
    char why[160] = "";
    const auto last = last_of_series_.find(series(c));
    if (time_limit_ > 0 && elapsed() > time_limit_) {
      std::snprintf(why, sizeof why, "time limit of %g s spent", time_limit_);
    } else if (row_budget_ > 0 && last != last_of_series_.end()) {
      const double predicted = engine::predict_seconds(last->second, c.strands);
      if (predicted > row_budget_)
        std::snprintf(why, sizeof why,
                      "predicted %.3g s (from the %d-strand case) > row budget %g s", predicted,
                      last->second.config.strands, row_budget_);
    }
    return why;
  }
  void record(const engine::BenchResult& r) {
    if (r.ran) last_of_series_[series(r.config)] = r;
  }

 private:
  static std::string series(const engine::BenchCase& c) {
    return c.backend + "/" + c.precision + "/" + c.integrator + "/" +
           (c.collisions ? "on/" : "off/") + std::to_string(c.vertices);
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  double row_budget_, time_limit_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, engine::BenchResult> last_of_series_;
};

// Prints one row per case (and writes them all to --json): ms/step, strand-vertex updates per
// second, and the model's own columns (mean iterations and contacts per strand and step). With a
// row budget, a case predicted (from the last case of its series, predict_seconds) to take
// longer is skipped and says so; with a time limit, every case after it is spent is skipped.
// Exit 1 when a case failed (its row says why), after every other case has run.
int cmd_bench(const BenchArgs& a) {
  if (!a.json.empty() && std::filesystem::path(a.json).extension() != ".json")
    throw Error("--json", "expected a .json file name");
  for (const std::string& c : a.collisions)
    if (c != "on" && c != "off") throw Error("--collisions", "must be on or off (got '" + c + "')");
  for (const std::string& p : a.precisions)  // here too: the reference's rows never read them
    if (p != "float" && p != "double")
      throw Error("--precision", "must be float or double (got '" + p + "')");
  if (!(a.row_budget >= 0)) throw Error("--row-budget", "must be >= 0 seconds");
  if (a.distinct_strands < 0) throw Error("--distinct-strands", "must be >= 0");
  if (!(a.time_limit >= 0)) throw Error("--time-limit", "must be >= 0 seconds");
  const engine::Model& model = engine::find_model(a.model, "--model");
  const std::vector<std::string> integrators =
      a.integrators.empty() ? std::vector{engine::to_string(model.integrators.front())}
                            : a.integrators;
  BenchBudget budget(a.row_budget, a.time_limit);
  nlohmann::json rows = nlohmann::json::array();
  bool any_failed = false;
  // The reference runs in double only: its rows are double whatever --precision asks (once,
  // however many precisions), and a notice says so, so that `--backend reference,cpu` shows the
  // reference beside the default float rows rather than dropping it.
  const auto precisions_of = [&](const std::string& backend) {
    return backend == "reference" ? std::vector<std::string>{"double"} : a.precisions;
  };
  const bool reference_asked =
      std::find(a.backends.begin(), a.backends.end(), "reference") != a.backends.end();
  if (reference_asked && a.precisions != std::vector<std::string>{"double"})
    std::printf("notice: the reference backend runs in double only: its rows are double\n");
  print_bench_header(model);
  for (const std::string& backend : a.backends)
    for (const std::string& precision : precisions_of(backend))
      for (const std::string& integrator : integrators)
        for (const std::string& collisions : a.collisions)
          for (int n : a.strands)
            for (int v : a.vertices) {
              const engine::BenchCase c{
                  a.model, backend, precision, integrator,        collisions == "on",
                  n,       v,       a.steps,   a.distinct_strands};
              engine::BenchResult r;
              if (const std::string skip = budget.skip_reason(c); !skip.empty()) {
                r.config = c;
                r.note = skip;
              } else {
                r = engine::run_bench(c);
                budget.record(r);
                any_failed = any_failed || r.failed;
              }
              print_bench_row(r);
              rows.push_back(engine::to_json(r));
            }
  if (!a.json.empty()) io::write_file_atomically(a.json, rows.dump(2) + "\n");
  return any_failed ? kExitFailure : 0;
}

#ifndef HAIRSIM_PYTHON_EXECUTABLE
#define HAIRSIM_PYTHON_EXECUTABLE "python3"
#endif

// `hairsim sweep ...` is the Python package's verb (python/hairsim/_sweep.py, on Dask;
// docs/cluster.md), handed over with its arguments to `python3 -m hairsim sweep`: the
// interpreter the package was built for (or $HAIRSIM_PYTHON), the build's package first on
// PYTHONPATH (<build>/src/hairsim beside <build>/python/hairsim); an installed one (pip install .)
// Python finds itself.
int cmd_sweep(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path package = exe.parent_path().parent_path() / "python";
  if (!ec && std::filesystem::is_regular_file(package / "hairsim" / "__init__.py", ec)) {
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = package.string() + (old && *old ? ":" + std::string(old) : "");
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  const char* python = std::getenv("HAIRSIM_PYTHON");
  if (!python || !*python) python = HAIRSIM_PYTHON_EXECUTABLE;
  std::vector<char*> args{const_cast<char*>(python), const_cast<char*>("-m"),
                          const_cast<char*>("hairsim")};
  args.insert(args.end(), argv + 1, argv + argc);
  args.push_back(nullptr);
  execvp(python, args.data());
  std::cerr << "hairsim: failed: sweep runs in Python: cannot start " << python << " ("
            << std::strerror(errno) << "; $HAIRSIM_PYTHON names another interpreter)\n";
  return kExitFailure;
}

int run(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "sweep") return cmd_sweep(argc, argv);
  CLI::App app{"hairsim: elastic-rod hair simulation (strand files, previews, generators)"};
  app.require_subcommand(1);
  const std::string units_help = "length unit of the numbers in the file: m, cm or mm";

  std::string info_path, info_units = "m";
  bool info_json = false;
  auto* info = app.add_subcommand("info", "Statistics of a strand file");
  info->add_option("FILE", info_path, "strand file")->required();
  info->add_option("--units", info_units, units_help)->capture_default_str();
  info->add_flag("--json", info_json, "print one JSON object");

  ConvertArgs conv;
  auto* convert = app.add_subcommand("convert", "Convert between strand formats (by extension)");
  convert->add_option("IN", conv.in, "input strand file")->required();
  convert->add_option("OUT", conv.out, "output strand file")->required();
  convert->add_option("--units", conv.units, units_help)->capture_default_str();
  convert->add_option("--out-units", conv.out_units, "unit to write (default: --units)");
  convert->add_option("--resample", conv.resample, "resample every strand to N vertices");
  convert->add_flag("--ascii", conv.ascii, "PLY: write ascii instead of binary");

  RenderArgs ren;
  auto* rend = app.add_subcommand("render", "Render a preview PNG of a strand file");
  rend->add_option("IN", ren.in, "strand file")->required();
  rend->add_option("-o,--output", ren.out, "output .png")->required();
  rend->add_option("--units", ren.units, units_help + " (strands and head)")->capture_default_str();
  rend->add_option("--head", ren.head, "head / collider mesh (.ply or .obj)");
  rend->add_option("--width", ren.options.width, "image width (pixels)")->capture_default_str();
  rend->add_option("--height", ren.options.height, "image height (pixels)")->capture_default_str();
  rend->add_option("--up", ren.up, "up axis of the scene: x, y, z, -x, -y, -z")
      ->capture_default_str();
  rend->add_option("--azimuth", ren.options.azimuth_deg, "camera azimuth around +y (degrees)")
      ->capture_default_str();
  rend->add_option("--elevation", ren.options.elevation_deg, "camera elevation (degrees)")
      ->capture_default_str();
  rend->add_option("--line-width", ren.options.line_width_px, "strand width (pixels)")
      ->capture_default_str();

  GenerateArgs gen;
  auto* gener = app.add_subcommand("generate", "Generate a hairstyle on an ellipsoid head");
  gener->add_option("--style", gen.style, "straight, wavy or curly")->capture_default_str();
  gener->add_option("--strands", gen.params.strands, "number of strands")->capture_default_str();
  gener->add_option("--vertices", gen.params.vertices, "vertices per strand")
      ->capture_default_str();
  gener->add_option("--length", gen.params.length, "strand length (m)")->capture_default_str();
  gener->add_option("--seed", gen.params.seed, "random seed (0 to 2^64 - 1)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  gener->add_option("--wave-amplitude", gen.params.wave_amplitude, "wavy: amplitude (m)")
      ->capture_default_str();
  gener->add_option("--wave-length", gen.params.wave_length, "wavy: wavelength (m)")
      ->capture_default_str();
  gener->add_option("--curl-radius", gen.params.curl_radius, "curly: helix radius (m)")
      ->capture_default_str();
  gener->add_option("--curl-pitch", gen.params.curl_pitch, "curly: rise per turn (m)")
      ->capture_default_str();
  gener->add_option("-o,--output", gen.out, "output strand file")->required();
  gener->add_option("--units", gen.units, "unit to write the file in")->capture_default_str();
  gener->add_option("--head-out", gen.head_out, "also write the ellipsoid head mesh (.ply/.obj)");

  RunArgs run_args;
  const std::string models = engine::model_names();
  auto* runc = app.add_subcommand(
      "run", "Run a scene file: a hairstyle or a single rod (model " + models + ")");
  runc->add_option("SCENE", run_args.scene, "scene file (.json), see docs/scenes.md")->required();
  runc->add_option("--out", run_args.out, "output folder (default: out/<scene name>)");
  runc->add_option("--resume", run_args.resume,
                   "continue the run stopped in this output folder from its checkpoint "
                   "(output.checkpoint_every)");
  runc->add_option("--final", run_args.final_file, "write the last state as a strand file");
  runc->add_option("--final-units", run_args.final_units, "unit of the --final file")
      ->capture_default_str();
  runc->add_option("--backend", run_args.backend,
                   "reference, cpu, cuda or auto (cuda when a device is present, else cpu)");
  runc->add_option("--model", run_args.model, "rod model (" + models + ")");
  runc->add_option("--precision", run_args.precision, "float or double (hairstyle scenes)");
  runc->add_option("--frames", run_args.frames, "frames to simulate (time.frames)");
  runc->add_option("--duration", run_args.duration, "seconds to simulate (time.duration)");
  runc->add_option("--set", run_args.overrides,
                   "override a scene field: key.path=value (repeatable)");

  BenchArgs bench_args;
  auto* bench = app.add_subcommand(
      "bench", "Time steps of generated hair on a still head, per model, backend and integrator");
  bench->add_option("--model", bench_args.model, "rod model (" + models + ")")
      ->capture_default_str();
  bench->add_option("--backend", bench_args.backends, "reference, cpu, cuda (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--precision", bench_args.precisions, "float, double (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  bench
      ->add_option("--integrator", bench_args.integrators,
                   "symplectic, implicit (comma list; default: the model's own)")
      ->delimiter(',');
  bench
      ->add_option("--collisions", bench_args.collisions,
                   "off, on: the head's sphere collider (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--strands", bench_args.strands, "strand counts (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--vertices", bench_args.vertices, "vertices per strand (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--steps", bench_args.steps, "timed steps per case (after 3 warm-up steps)")
      ->capture_default_str();
  bench->add_option("--distinct-strands", bench_args.distinct_strands,
                    "generate only this many strands and repeat them (the reduced models fit "
                    "each shape once: large cases set up in seconds; 0: all distinct)");
  bench->add_option("--row-budget", bench_args.row_budget,
                    "skip a case predicted (linearly in strands, from the last smaller case of "
                    "its series) to take longer than this many seconds (0: no budget)");
  bench->add_option("--time-limit", bench_args.time_limit,
                    "skip every case once the command has run this many seconds (0: no limit)");
  bench->add_option("--json", bench_args.json, "also write the rows to this .json file");

  // Listed for --help only: run() hands `sweep` to Python before parsing.
  app.add_subcommand("sweep",
                     "Run many variants of a scene on Dask: SPEC.json [--scheduler ADDRESS | "
                     "--local N] --out DIR (python3 -m hairsim sweep, docs/cluster.md)");

  auto* devices_cmd = app.add_subcommand(
      "devices", "Print the CPU and CUDA devices this build can use, as JSON (docs/gpu.md)");

  auto* models_cmd = app.add_subcommand(
      "models", "List the rod models (name, integrators, paper), one per line, for scripts");
  std::string models_backend;
  models_cmd
      ->add_option("--backend", models_backend,
                   "only the models that simulate hairstyles on this backend")
      ->check(CLI::IsMember({"reference", "cpu", "cuda"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::cerr << "hairsim: error: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (*info) return cmd_info(info_path, info_units, info_json);
  if (*convert) return cmd_convert(conv);
  if (*rend) return cmd_render(ren);
  if (*gener) return cmd_generate(gen);
  if (*runc) return cmd_run(run_args);
  if (*bench) return cmd_bench(bench_args);
  if (*models_cmd) return cmd_models(models_backend);
  if (*devices_cmd) {
    std::cout << engine::describe_devices().dump(2) << "\n";
    return 0;
  }
  return kExitBadInput;
}

}  // namespace
}  // namespace hairsim

int main(int argc, char** argv) {
  // OpenMP's wait policy (engine/threads.hpp): libgomp has read the environment already, so the
  // policy takes effect in a fresh image of this program (same process, arguments, environment
  // plus the policy). Should that fail, the run goes on with libgomp's default.
  if (hairsim::engine::default_wait_policy()) execv("/proc/self/exe", argv);
  try {
    return hairsim::run(argc, argv);
  } catch (const hairsim::RunFailure& e) {
    std::cerr << "hairsim: run failed: " << e.what() << "\n";
    return hairsim::kExitFailure;
  } catch (const hairsim::Error& e) {
    std::cerr << "hairsim: error: " << e.what() << "\n";
    return hairsim::kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "hairsim: failed: out of memory (fewer strands or vertices would fit)\n";
    return hairsim::kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "hairsim: failed: " << e.what() << "\n";
    return hairsim::kExitFailure;
  }
}
