#pragma once
// Strand and mesh files. The format is picked by the file extension:
//   .hair  Cem Yuksel's HAIR format            read + write
//   .data  USC-HairSalon                       read + write
//   .bin   CT2Hair (7 float32 per vertex)      read + write
//   .ply   PLY vertex + strand(nsegs) + edge   read + write (binary LE or ascii)
//   .obj   OBJ polylines (v + l)               read + write
//   .usda  USD BasisCurves                     read (the subset hairsim writes) + write
// Readers check every count against the file size before allocating and throw Error naming
// the file, the byte offset and the problem. Writers write to a temporary file and rename it,
// so a failed write leaves no partial output.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "hairsim/mesh.hpp"
#include "hairsim/strands.hpp"
#include "hairsim/units.hpp"

namespace hairsim {

enum class StrandFormat { hair, usc_data, ct2hair_bin, ply, obj, usda };

// Throws Error naming the file when the extension is not a strand format.
StrandFormat strand_format_from_path(const std::filesystem::path& path);
const char* to_string(StrandFormat format);

struct ReadOptions {
  LengthUnit units = LengthUnit::m;  // unit of the numbers in the file
};

struct ReadReport {
  // Strands with fewer than 2 points (real USC files contain some) are skipped, not errors.
  std::size_t skipped_degenerate_strands = 0;
};

struct WriteOptions {
  LengthUnit units = LengthUnit::m;  // unit to write the numbers in
  bool ply_ascii = false;            // PLY: ascii instead of binary_little_endian
};

StrandSet read_strands(const std::filesystem::path& path, const ReadOptions& options = {},
                       ReadReport* report = nullptr);
void write_strands(const std::filesystem::path& path, const StrandSet& strands,
                   const WriteOptions& options = {});

// An animated .usda written frame by frame: one BasisCurves prim whose points are time samples
// (time code = frame number, `fps` codes per second). The file appears at finish() (temporary
// file + rename) and holds every frame added before, so a run that stops early still leaves a
// valid file. Without finish() (an exception) the temporary files are removed.
class UsdaAnimationWriter {
 public:
  UsdaAnimationWriter(std::filesystem::path path, const StrandSet& topology, double fps);
  ~UsdaAnimationWriter();
  UsdaAnimationWriter(const UsdaAnimationWriter&) = delete;
  UsdaAnimationWriter& operator=(const UsdaAnimationWriter&) = delete;
  // The points of every strand (topology's order, m) at frame `frame`.
  void add_frame(int frame, const std::vector<Vec3>& points);
  void finish();

  // Where the frames written so far end (a checkpoint's record): the frames file beside the
  // .usda (PATH.frames.tmp, kept by a killed run) and the frame range.
  struct Progress {
    std::uint64_t body_bytes = 0;
    int first = 0, last = -1;
  };
  Progress progress() const { return {body_bytes_, first_, last_}; }
  // Takes up a stopped run's frames: its frames file cut back to `progress.body_bytes` (Error
  // when it is missing or shorter, e.g. removed by hand).
  UsdaAnimationWriter(std::filesystem::path path, const StrandSet& topology, double fps,
                      const Progress& resume_from);

 private:
  std::filesystem::path path_, body_;
  std::vector<std::size_t> counts_;
  std::size_t points_ = 0;
  double fps_;
  int first_ = 0, last_ = -1;
  std::uint64_t body_bytes_ = 0;
  bool finished_ = false;
};

// An animated .usda read back (the subset UsdaAnimationWriter writes): frame times (time codes)
// and the points of each. Throws Error naming the file and offset on anything else.
struct UsdaAnimation {
  StrandSet topology;  // the strands at the first sample
  double fps = 0;
  std::vector<double> times;
  std::vector<std::vector<Vec3>> frames;
};
UsdaAnimation read_usda_animation(const std::filesystem::path& path);

// Meshes: .ply (vertex + face list) and .obj (v + f); polygons are fan-triangulated.
TriangleMesh read_mesh(const std::filesystem::path& path, const ReadOptions& options = {});
void write_mesh(const std::filesystem::path& path, const TriangleMesh& mesh,
                const WriteOptions& options = {});

}  // namespace hairsim
