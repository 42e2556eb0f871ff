//===- DeviceCodeTest.cpp - Every op's kernels for CUDA and ROCm ----------===//
//
/// \file
/// No NVIDIA or AMD GPU runs here, so the CUDA and ROCm targets are checked
/// as far as a machine without one can: the module of every op case
/// compiles with `--target=cuda|rocm` (all kernels in one device module),
/// and the device code it dumps is validated by the vendors' own tools —
/// CUDA's ptxas assembles the PTX for sm_80 and sm_90 — and by the ELF
/// headers of the cubins (EM_CUDA) and hsacos (EM_AMDGPU with the
/// gfx90a/gfx942 machine flags).
/// Running them is bench/gpu_check.sh's job, on a machine with a GPU.
//
//===----------------------------------------------------------------------===//

#include "Cases.h"

#include <dirent.h>

#include <cstring>
#include <map>

using namespace rlx::e2e;

namespace {

/// Files of `dir` by extension (".ptx", ".sm_80.cubin", ...): the part of
/// the name after the module name.
std::map<std::string, std::vector<std::string>> listByKind(
    const std::string &dir) {
  std::map<std::string, std::vector<std::string>> byKind;
  DIR *d = opendir(dir.c_str());
  if (!d)
    return byKind;
  while (dirent *entry = readdir(d)) {
    std::string name = entry->d_name;
    size_t dot = name.find('.');
    if (name[0] == '.' || dot == std::string::npos)
      continue;
    byKind[name.substr(dot)].push_back(dir + "/" + name);
  }
  closedir(d);
  return byKind;
}

struct ElfHeader {
  bool ok = false;
  uint16_t machine = 0;
  uint32_t flags = 0;
};

ElfHeader readElfHeader(const std::string &path) {
  std::string bytes = readFile(path);
  ElfHeader h;
  if (bytes.size() < 64 || bytes.compare(0, 4, "\x7f" "ELF") != 0 ||
      bytes[4] != 2 /*ELFCLASS64*/)
    return h;
  std::memcpy(&h.machine, bytes.data() + 18, 2);
  std::memcpy(&h.flags, bytes.data() + 48, 4);
  h.ok = true;
  return h;
}

/// rlxc of every case of `v` for `target`, device code dumped to the
/// returned folder; fails the test when rlxc fails.
std::string compileForTarget(const Variant &cpuVariant,
                             const std::string &target) {
  Variant v = cpuVariant;
  v.target = target;
  std::string dir = makeScratchSubdir(target + "_" + v.name());
  std::string mlir = dir + "/module.mlir";
  writeFile(mlir, moduleText(v));
  ProcessResult p = runProcess({RLXC_PATH, mlir, "--target=" + target,
                                "--dump-device-code=" + dir + "/device", "-o",
                                dir + "/module.so"},
                               600);
  EXPECT_EQ(p.exitCode, 0) << "rlxc " << mlir << " --target=" << target
                           << " failed:\n"
                           << p.err << p.out;
  return dir + "/device";
}

class DeviceCode : public ::testing::TestWithParam<Variant> {};

/// Occurrences of `needle` in the file at `path`.
size_t countIn(const std::string &path, const std::string &needle) {
  std::string text = readFile(path);
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size()))
    ++count;
  return count;
}

TEST_P(DeviceCode, CudaKernelsAssembleWithPtxas) {
  std::string dir = compileForTarget(GetParam(), "cuda");
  auto files = listByKind(dir);
  // One module holding every kernel: its PTX and a cubin per chip.
  const std::vector<std::string> &ptx = files[".sm_80.ptx"];
  ASSERT_EQ(ptx.size(), 1u) << "expected one PTX module in " << dir;
  EXPECT_GT(countIn(ptx[0], ".entry "), 50u) << "too few kernels in "
                                              << ptx[0];
  EXPECT_EQ(files[".sm_80.cubin"].size(), 1u);
  EXPECT_EQ(files[".sm_90.cubin"].size(), 1u);
  for (const char *chip : {".sm_80.cubin", ".sm_90.cubin"})
    for (const std::string &cubin : files[chip]) {
      ElfHeader h = readElfHeader(cubin);
      EXPECT_TRUE(h.ok && h.machine == 190 /*EM_CUDA*/) << cubin;
    }
  if (!fileExists(RLX_PTXAS))
    GTEST_SKIP() << "no ptxas at " RLX_PTXAS;
  for (const std::string &file : ptx)
    for (const char *arch : {"sm_80", "sm_90"}) {
      ProcessResult p = runProcess(
          {RLX_PTXAS, std::string("-arch=") + arch, file, "-o", "/dev/null"});
      EXPECT_EQ(p.exitCode, 0) << "ptxas -arch=" << arch << " " << file
                               << ":\n"
                               << p.err;
    }
}

TEST_P(DeviceCode, RocmHsacoForEachChip) {
  std::string dir = compileForTarget(GetParam(), "rocm");
  auto files = listByKind(dir);
  // One module holding every kernel, an hsaco per chip; each kernel has a
  // kernel descriptor symbol (NAME.kd).
  const std::vector<std::string> &gfx90a = files[".gfx90a.hsaco"];
  ASSERT_EQ(gfx90a.size(), 1u) << "expected one hsaco per chip in " << dir;
  EXPECT_GT(countIn(gfx90a[0], ".kd"), 50u) << "too few kernels in "
                                             << gfx90a[0];
  EXPECT_EQ(files[".gfx942.hsaco"].size(), 1u);
  // EF_AMDGPU_MACH (the low byte of e_flags): gfx90a 0x3f, gfx942 0x4c.
  for (auto [kind, mach] : {std::pair<const char *, uint32_t>{".gfx90a.hsaco",
                                                               0x3f},
                            {".gfx942.hsaco", 0x4c}})
    for (const std::string &hsaco : files[kind]) {
      ElfHeader h = readElfHeader(hsaco);
      EXPECT_TRUE(h.ok && h.machine == 224 /*EM_AMDGPU*/) << hsaco;
      EXPECT_EQ(h.flags & 0xff, mach) << hsaco;
    }
}

std::string variantName(const ::testing::TestParamInfo<Variant> &info) {
  return info.param.name();
}

INSTANTIATE_TEST_SUITE_P(Ops, DeviceCode,
                         ::testing::Values(Variant{false, false},
                                           Variant{false, true},
                                           Variant{true, false},
                                           Variant{true, true}),
                         variantName);

} // namespace
