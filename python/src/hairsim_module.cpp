// The `hairsim` Python module's native part (`hairsim._hairsim`): strand files, generated styles,
// scenes, the simulator, hairstyle runs and the bench, over the same engine the CLI uses, so a
// script gets the CLI's validation and one-line errors (docs/python.md). numpy arrays in and out.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/bench.hpp"
#include "engine/devices.hpp"
#include "engine/hair_run.hpp"
#include "engine/hair_scene.hpp"
#include "engine/model.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/io.hpp"
#include "hairsim/motion.hpp"
#include "hairsim/render.hpp"
#include "hairsim/simulator.hpp"
#include "hairsim/units.hpp"
#include "scene/scene_document.hpp"

namespace py = pybind11;

namespace hairsim::python {
namespace {

// --- numpy <-> StrandSet --------------------------------------------------------------------

using Points = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Counts = py::array_t<long long, py::array::c_style | py::array::forcecast>;

py::tuple to_numpy(const StrandSet& s) {
  Points points({py::ssize_t(s.point_count()), py::ssize_t(3)});
  auto p = points.mutable_unchecked<2>();
  for (std::size_t i = 0; i < s.point_count(); ++i)
    for (int c = 0; c < 3; ++c) p(py::ssize_t(i), c) = s.points[i][c];
  Counts counts(py::ssize_t(s.strand_count()));
  auto n = counts.mutable_unchecked<1>();
  for (std::size_t i = 0; i < s.strand_count(); ++i)
    n(py::ssize_t(i)) = py::ssize_t(s.strand_size(i));
  return py::make_tuple(points, counts);
}

// The counts checked against the points before anything is allocated from them: each count is
// compared with the points not yet taken (never summed past them, so no sum can overflow).
StrandSet from_numpy(const Points& points, const Counts& counts) {
  if (points.ndim() != 2 || points.shape(1) != 3)
    throw Error("points", "must be an array of shape (N, 3)");
  if (counts.ndim() != 1) throw Error("counts", "must be a 1-D array of vertices per strand");
  const auto point_count = std::size_t(points.shape(0));
  auto n = counts.unchecked<1>();
  std::size_t total = 0;
  std::vector<std::size_t> offsets{0};
  for (py::ssize_t i = 0; i < counts.shape(0); ++i) {
    if (n(i) < 2)
      throw Error("counts", "strand " + std::to_string(i) + " has fewer than 2 vertices");
    if (std::size_t(n(i)) > point_count - total)
      throw Error("counts", "sum to more than the " + std::to_string(point_count) +
                                " points (strand " + std::to_string(i) + " has " +
                                std::to_string(n(i)) + ")");
    total += std::size_t(n(i));
    offsets.push_back(total);
  }
  if (total != point_count)
    throw Error("counts", "sum to " + std::to_string(total) + " vertices, points has " +
                              std::to_string(point_count));
  StrandSet s;
  s.offsets = std::move(offsets);
  s.points.resize(point_count);
  auto p = points.unchecked<2>();
  for (py::ssize_t i = 0; i < points.shape(0); ++i)
    s.points[std::size_t(i)] = {p(i, 0), p(i, 1), p(i, 2)};
  s.validate("points");
  return s;
}

// --- scenes ---------------------------------------------------------------------------------

// A hairstyle scene parsed as `hairsim run` parses it: from JSON text (a file's, or a dict's
// dumped by the Python layer) with --set style overrides; errors name the file (when there is
// one) and the field.
struct Scene {
  nlohmann::json document;
  std::filesystem::path directory;  // relative file names in the scene are taken from here
  std::string source;               // the file, or "" for a dict
  engine::HairScene parsed;
};

std::shared_ptr<Scene> make_scene(const std::string& text, const std::string& source,
                                  const std::string& directory,
                                  const std::vector<std::string>& overrides) {
  auto scene = std::make_shared<Scene>();
  scene->source = source;
  scene->directory = directory;
  scene->document = scene::parse_scene_document(text, source.empty() ? "scene" : source, overrides);
  if (!engine::is_hair_scene(scene->document))
    throw Error(source.empty() ? "hair" : source + ": hair",
                "missing: the Python module runs hairstyle scenes (single rods: hairsim run)");
  scene->parsed = naming_file(
      source, [&] { return engine::parse_hair_scene(scene->document, scene->directory); });
  return scene;
}

// The scene parsed again with another model, as `--model` and the "model=..." override do: the
// model's own settings ("solver"), integrator and step are the new model's.
engine::HairScene with_model(const Scene& scene, const std::string& model) {
  return make_scene(scene.document.dump(), scene.source, scene.directory.string(),
                    {"model=" + nlohmann::json(model).dump()})
      ->parsed;
}

// --- the simulator --------------------------------------------------------------------------

// A Simulator over a scene's setup; optionally with the head driven from Python: its motion is
// a keyframe path that set_head_pose extends one step at a time.
class PySimulator {
 public:
  PySimulator(const Scene& scene, const std::string& model, const std::string& backend,
              const std::string& precision, bool drive_head)
      : PySimulator(model.empty() ? scene.parsed : with_model(scene, model), backend, precision,
                    drive_head) {}

  PySimulator(const engine::HairScene& parsed, const std::string& backend,
              const std::string& precision, bool drive_head)
      : setup_(parsed.setup), options_(parsed.options) {
    if (!backend.empty()) options_.backend = parse_backend(backend);
    if (!precision.empty()) options_.precision = parse_precision(precision);
    if (options_.backend == Backend::reference && options_.precision == Precision::float32 &&
        precision.empty())
      options_.precision = Precision::float64;  // the scene's float means the batched backends
    if (drive_head) {
      path_ = std::make_shared<KeyframePath>(std::vector<Keyframe>{Keyframe{}}, "head");
      setup_.head = ClampMotion{};
      setup_.head.center = parsed.setup.head.center;
      setup_.head.keyframes = path_;
    }
    simulator_ = engine::Simulator::create(setup_, options_);
  }

  void step(int n) {
    if (n < 0) throw Error("n", "must be >= 0 steps");
    py::gil_scoped_release release;
    for (int k = 0; k < n; ++k) simulator_->step();
  }

  void set_head_pose(const Vec3& translation, const Vec3& rotation) {
    if (!path_)
      throw Error("set_head_pose",
                  "the head is driven by the scene; create the Simulator with "
                  "drive_head=True");
    const double t = simulator_->time() + simulator_->dt();
    path_->append({t, translation, rotation}, "set_head_pose");
  }

  py::array vertices_array(bool velocity) {
    std::vector<Vec3> v;
    {
      py::gil_scoped_release release;
      velocity ? simulator_->velocities(v) : simulator_->positions(v);
    }
    const py::ssize_t s = simulator_->strands(), n = simulator_->vertices();
    if (options_.precision == Precision::float32) return filled<float>(v, s, n);
    return filled<double>(v, s, n);
  }

  py::dict counters() {
    const StepCounters c = simulator_->counts();
    py::dict d;
    for (std::size_t k = 0; k < c.names.size(); ++k) d[py::str(c.names[k])] = c.values[k];
    return d;
  }

  py::dict summary() {
    py::dict d;
    d["model"] = options_.model;
    d["backend"] = to_string(options_.backend);
    d["precision"] = to_string(options_.precision);
    d["device"] = simulator_->device();
    d["strands"] = simulator_->strands();
    d["vertices"] = simulator_->vertices();
    d["dt"] = simulator_->dt();
    d["steps"] = simulator_->steps();
    d["time"] = simulator_->time();
    d["counters"] = counters();
    return d;
  }

  py::bytes save_state() { return py::bytes(simulator_->save_state()); }
  void restore_state(const py::bytes& state) { simulator_->restore_state(std::string(state)); }
  const engine::Simulator& simulator() const { return *simulator_; }

 private:
  template <class T>
  static py::array filled(const std::vector<Vec3>& v, py::ssize_t strands, py::ssize_t vertices) {
    py::array_t<T> a({strands, vertices, py::ssize_t(3)});
    T* out = a.mutable_data();
    for (std::size_t i = 0; i < v.size(); ++i)
      for (int c = 0; c < 3; ++c) out[3 * i + std::size_t(c)] = static_cast<T>(v[i][c]);
    return py::array(std::move(a));
  }

  HairSetup setup_;
  SimulatorOptions options_;
  std::shared_ptr<KeyframePath> path_;
  std::unique_ptr<engine::Simulator> simulator_;
};

}  // namespace
}  // namespace hairsim::python

PYBIND11_MODULE(_hairsim, m) {
  using namespace hairsim;
  using namespace hairsim::python;
  m.doc() = "hairsim's native module; use the `hairsim` package (docs/python.md).";

  // hairsim::Error (bad input: a file, a scene field, a parameter) -> hairsim.Error, a
  // ValueError whose `field` is what the message names first; RunFailure -> hairsim.RunFailure.
  static py::exception<Error> error(m, "Error", PyExc_ValueError);
  static py::exception<RunFailure> failure(m, "RunFailure", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const RunFailure& e) {
      py::object instance = py::reinterpret_borrow<py::object>(failure)(e.what());
      instance.attr("field") = e.where();
      PyErr_SetObject(failure.ptr(), instance.ptr());
    } catch (const Error& e) {
      py::object instance = py::reinterpret_borrow<py::object>(error)(e.what());
      instance.attr("field") = e.where();
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });

  m.def(
      "read_strands",
      [](const std::string& path, const std::string& units) {
        ReadOptions o;
        o.units = parse_length_unit(units, "units");
        return to_numpy(read_strands(path, o));
      },
      py::arg("path"), py::arg("units") = "m");
  m.def(
      "write_strands",
      [](const std::string& path, const Points& points, const Counts& counts,
         const std::string& units) {
        WriteOptions o;
        o.units = parse_length_unit(units, "units");
        write_strands(path, from_numpy(points, counts), o);
      },
      py::arg("path"), py::arg("points"), py::arg("counts"), py::arg("units") = "m");
  m.def(
      "generate",
      [](const std::string& style, int strands, int vertices, double length, std::uint64_t seed) {
        HairstyleParams p;
        p.style = parse_hair_style(style, "style");
        p.strands = strands;
        p.vertices = vertices;
        p.length = length;
        p.seed = seed;
        return to_numpy(generate_hairstyle(p));
      },
      py::arg("style") = "wavy", py::arg("strands") = 1000, py::arg("vertices") = 32,
      py::arg("length") = 0.25, py::arg("seed") = 1);
  m.def("models", [] {
    py::list out;
    for (const engine::Model& model : engine::models()) {
      py::list integrators;
      for (const Integrator i : model.integrators) integrators.append(to_string(i));
      py::dict d;
      d["name"] = model.name;
      d["description"] = model.description;
      d["integrators"] = integrators;
      py::list backends;
      for (const engine::Backend b : model.backends) backends.append(to_string(b));
      d["backends"] = backends;
      out.append(d);
    }
    return out;
  });
  m.def("devices", [] { return engine::describe_devices().dump(); });

  py::class_<Scene, std::shared_ptr<Scene>>(m, "_Scene")
      .def_property_readonly("json", [](const Scene& s) { return s.document.dump(); })
      .def_property_readonly("source", [](const Scene& s) { return s.source; })
      .def_property_readonly("strands",
                             [](const Scene& s) { return s.parsed.setup.strands.strand_count(); })
      .def_property_readonly("frames", [](const Scene& s) { return s.parsed.frames; })
      .def_property_readonly("dt", [](const Scene& s) { return s.parsed.setup.dt; })
      .def_property_readonly("model", [](const Scene& s) { return s.parsed.options.model; })
      .def_property_readonly("backend",
                             [](const Scene& s) { return to_string(s.parsed.options.backend); })
      .def_property_readonly("precision",
                             [](const Scene& s) { return to_string(s.parsed.options.precision); })
      .def_property_readonly("initial_strands",
                             [](const Scene& s) { return to_numpy(s.parsed.setup.strands); });
  m.def("_scene", &make_scene, py::arg("text"), py::arg("source"), py::arg("directory"),
        py::arg("overrides"));

  py::class_<PySimulator>(m, "_Simulator")
      .def(py::init<const Scene&, const std::string&, const std::string&, const std::string&,
                    bool>(),
           py::arg("scene"), py::arg("model"), py::arg("backend"), py::arg("precision"),
           py::arg("drive_head"))
      .def("step", &PySimulator::step, py::arg("n") = 1)
      .def("positions", [](PySimulator& s) { return s.vertices_array(false); })
      .def("velocities", [](PySimulator& s) { return s.vertices_array(true); })
      .def("counters", &PySimulator::counters)
      .def("summary", &PySimulator::summary)
      .def("set_head_pose", &PySimulator::set_head_pose, py::arg("translation"),
           py::arg("rotation"))
      .def("save_state", &PySimulator::save_state)
      .def("restore_state", &PySimulator::restore_state, py::arg("state"))
      .def_property_readonly("strands",
                             [](const PySimulator& s) { return s.simulator().strands(); })
      .def_property_readonly("vertices",
                             [](const PySimulator& s) { return s.simulator().vertices(); })
      .def_property_readonly("dt", [](const PySimulator& s) { return s.simulator().dt(); })
      .def_property_readonly("time", [](const PySimulator& s) { return s.simulator().time(); })
      .def_property_readonly("steps", [](const PySimulator& s) { return s.simulator().steps(); })
      .def_property_readonly("device", [](const PySimulator& s) { return s.simulator().device(); });

  m.def(
      "_run",
      [](const Scene& scene, const std::string& out, bool resume) {
        // The CLI's run path (the folder's checks and lock, its removal on bad input) on a
        // thread of its own, while this one keeps Python's signal handlers running: Ctrl-C
        // stops the run after its current frame with every output complete, as SIGINT stops
        // `hairsim run`, and then raises KeyboardInterrupt here.
        std::atomic<bool> stop{false}, done{false};
        const engine::RunControl control{nullptr, false, &stop, resume, "out"};
        engine::HairRunResult r;
        std::exception_ptr thrown;
        std::thread worker([&] {
          try {
            r = engine::run_hair_scene(scene.parsed, out, control);
          } catch (...) {
            thrown = std::current_exception();
          }
          done = true;
        });
        std::optional<py::error_already_set> interrupt;
        while (!done) {
          {
            py::gil_scoped_release release;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
          if (!interrupt && PyErr_CheckSignals() != 0) {
            interrupt.emplace();  // the KeyboardInterrupt, kept until the run has stopped
            stop = true;
          }
        }
        worker.join();
        if (thrown) std::rethrow_exception(thrown);
        if (interrupt) throw std::move(*interrupt);
        return r.summary.dump();
      },
      py::arg("scene"), py::arg("out"), py::arg("resume") = false);
  m.def(
      "_bench",
      [](const std::string& model, const std::string& backend, const std::string& precision,
         const std::string& integrator, bool collisions, int strands, int vertices, int steps) {
        engine::BenchResult r;
        {
          py::gil_scoped_release release;
          r = engine::run_bench(
              {model, backend, precision, integrator, collisions, strands, vertices, steps});
        }
        return engine::to_json(r).dump();
      },
      py::arg("model"), py::arg("backend"), py::arg("precision"), py::arg("integrator"),
      py::arg("collisions"), py::arg("strands"), py::arg("vertices"), py::arg("steps"));

  // PNG in and out through the renderer's libpng code (the sweep's contact sheet).
  m.def(
      "_read_png",
      [](const std::string& path) {
        const Image image = read_png(path);
        py::array_t<std::uint8_t> a(
            {py::ssize_t(image.height), py::ssize_t(image.width), py::ssize_t(3)});
        std::copy(image.rgb.begin(), image.rgb.end(), a.mutable_data());
        return a;
      },
      py::arg("path"));
  m.def(
      "_write_png",
      [](const std::string& path,
         const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>& rgb) {
        if (rgb.ndim() != 3 || rgb.shape(2) != 3)
          throw Error("rgb", "must be an array of shape (height, width, 3)");
        Image image;
        image.height = int(rgb.shape(0));
        image.width = int(rgb.shape(1));
        image.rgb.assign(rgb.data(), rgb.data() + rgb.size());
        write_png(path, image);
      },
      py::arg("path"), py::arg("rgb"));
}
