//===- main.cpp - rlx-run: run an entry point of an rlx artifact ----------===//
//
/// \file
/// `rlx-run model.so --fn NAME --weights W.safetensors --input [NAME=]X.npy
/// [--output Y.npy | --outputs Y.safetensors] [--benchmark N] [--threads N]
/// [--device cpu|vulkan|cuda|hip] [--info] [--replicas single|mpi|nccl]
/// [--check-grads [--eps E] [--rtol R] [--atol A] [--seed S] [--directions N]]`.
/// Only flag parsing, printing and calls into the runtime live here. Every
/// failure is one line `rlx-run: error: ...` on stderr and exit code 1; bad
/// usage exits with 2.
//
//===----------------------------------------------------------------------===//

#include "rlx/check_grads.hpp"
#include "rlx/communicator.hpp"
#include "rlx/runtime.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sys/stat.h>

namespace {

struct Options {
  std::string model;
  std::string function;
  std::vector<std::string> weights;
  std::vector<std::string> inputs;
  std::string output;
  std::string outputs;
  int benchmark = 0;
  int threads = 0;
  std::string device;
  bool info = false;
  bool allowUnusedWeights = false;
  bool check_grads = false;
  std::optional<double> eps, rtol, atol;
  uint64_t seed = 0;
  unsigned directions = 1;
  std::string replicas;
};

/// A failure to report as `rlx-run: error: ...`, exit code 1.
struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// --check-grads ran and printed FAIL: exit code 1, no further message.
struct GradCheckFailed {};

std::string joinNames(const std::vector<rlx::runtime::TensorSpec> &specs) {
  std::string names;
  for (const rlx::runtime::TensorSpec &spec : specs)
    names += (names.empty() ? "" : ", ") + spec.name;
  return names.empty() ? "none" : names;
}

/// The device --device names, or the artifact's when it names none.
rlx_device_t chosenDevice(const Options &options) {
  return options.device.empty() ? RLX_DEVICE_DEFAULT
                                : rlx::runtime::parse_device(options.device);
}

void printInfo(const rlx::runtime::Artifact &artifact, rlx_device_t device) {
  std::printf("artifact: %s\n", artifact.path().c_str());
  std::printf("target: %s\n", artifact.target().c_str());
  // The device it runs on, and whether this machine has it.
  std::string status;
  try {
    status = rlx::runtime::Session(artifact, device).device_description();
  } catch (const rlx::runtime::RuntimeError &error) {
    if (error.code() == RLX_STATUS_INVALID_ARGUMENT)
      throw;
    status = std::string("unavailable: ") + error.what();
  }
  std::printf("device: %s (%s)\n", rlx_device_name(artifact.device()),
              status.c_str());
  if (!artifact.compiler().empty())
    std::printf("compiler: %s\n", artifact.compiler().c_str());
  if (!artifact.cpu().empty()) {
    std::string missing = artifact.missing_cpu_features();
    std::printf("cpu: %s (needs %s; %s)\n", artifact.cpu().c_str(),
                artifact.cpu_features().empty()
                    ? "no listed features"
                    : artifact.cpu_features().c_str(),
                missing.empty() ? "this machine has them"
                                : ("this machine lacks " + missing).c_str());
  }
  auto printSpecs = [](const char *title,
                       const std::vector<rlx::runtime::TensorSpec> &specs) {
    std::printf("  %s:%s\n", title, specs.empty() ? " none" : "");
    for (const rlx::runtime::TensorSpec &spec : specs)
      std::printf("    %s\n", spec.to_string().c_str());
  };
  for (const rlx::runtime::EntryPoint &entry : artifact.entry_points()) {
    std::printf("entry point '%s' (workspace %" PRIu64
                " bytes, liveness lower bound %" PRIu64 ")\n",
                entry.name().c_str(), entry.workspace_bytes(),
                entry.workspace_lower_bound_bytes());
    printSpecs("inputs", entry.inputs());
    printSpecs("params", entry.params());
    if (std::optional<rlx::runtime::EntryPoint> prepare = entry.prepare())
      printSpecs(("weights it prepares once per binding ('" +
                  prepare->name() + "')").c_str(),
                 prepare->params());
    printSpecs("outputs", entry.outputs());
  }
  std::printf("params:%s\n", artifact.params().empty() ? " none" : "");
  for (const rlx::runtime::TensorSpec &param : artifact.params())
    std::printf("  %s\n", param.to_string().c_str());
}

/// One element, exact for integers, `%.6g` for floats.
std::string formatElement(const rlx::runtime::HostTensor &tensor,
                          size_t index) {
  char text[64];
  switch (tensor.dtype()) {
  case RLX_DTYPE_I64:
    std::snprintf(text, sizeof(text), "%" PRId64,
                  tensor.data<int64_t>()[index]);
    break;
  case RLX_DTYPE_UI64:
    std::snprintf(text, sizeof(text), "%" PRIu64,
                  tensor.data<uint64_t>()[index]);
    break;
  case RLX_DTYPE_I32:
  case RLX_DTYPE_I16:
  case RLX_DTYPE_I8:
  case RLX_DTYPE_I1:
  case RLX_DTYPE_UI32:
  case RLX_DTYPE_UI16:
  case RLX_DTYPE_UI8:
    std::snprintf(text, sizeof(text), "%.0f", tensor.get_f64(index));
    break;
  default:
    std::snprintf(text, sizeof(text), "%.6g", tensor.get_f64(index));
  }
  return text;
}

/// `name: f32[2,2] = [1, 2, 3, 4]`, eliding the middle past 64 elements.
void printOutput(const std::string &name,
                 const rlx::runtime::HostTensor &tensor) {
  const size_t maxShown = 64, edge = 6;
  size_t count = tensor.element_count();
  std::string text = name + ": " + tensor.type_string() + " = [";
  for (size_t i = 0; i < count; ++i) {
    if (count > maxShown && i == edge) {
      text += "..., ";
      i = count - edge;
    }
    text += formatElement(tensor, i) + (i + 1 < count ? ", " : "");
  }
  std::printf("%s]\n", text.c_str());
}

/// True when `a` and `b` name the same existing file, or the same path.
bool sameFile(const std::string &a, const std::string &b) {
  struct stat statA, statB;
  if (stat(a.c_str(), &statA) == 0 && stat(b.c_str(), &statB) == 0)
    return statA.st_dev == statB.st_dev && statA.st_ino == statB.st_ino;
  std::error_code ignored;
  return std::filesystem::weakly_canonical(a, ignored) ==
         std::filesystem::weakly_canonical(b, ignored);
}

/// The file part of an `--input [NAME=]FILE` argument, and its name if any.
/// An argument that names an existing file is that file; otherwise it
/// splits at its first `=` (input names may hold `/`, as ONNX's
/// `gpu_0/data_0` and PyTorch's `/layer1/Relu_output_0` do).
std::pair<std::string, std::string> splitInput(const std::string &argument) {
  size_t equals = argument.find('=');
  struct stat info;
  if (equals == std::string::npos || equals == 0 ||
      stat(argument.c_str(), &info) == 0)
    return {"", argument};
  return {argument.substr(0, equals), argument.substr(equals + 1)};
}

/// Refuses to let an output file clobber anything the user gave.
void checkNoOverwrite(const Options &options, const std::string &target) {
  std::vector<std::pair<std::string, std::string>> given = {
      {options.model, "the model"}};
  for (const std::string &file : options.weights)
    given.emplace_back(file, "a weights file");
  for (const std::string &input : options.inputs)
    given.emplace_back(splitInput(input).second, "an input");
  for (const auto &[file, what] : given)
    if (sameFile(target, file))
      throw ToolError("refusing to overwrite '" + target + "', which is " +
                      what);
}

rlx::runtime::EntryPoint
chooseEntryPoint(const rlx::runtime::Artifact &artifact,
                 const std::string &name, bool check_grads = false) {
  if (!name.empty())
    return artifact.entry_point(name);
  std::vector<rlx::runtime::EntryPoint> entries = artifact.entry_points();
  if (check_grads) {
    // The one FN with FN_jvp and FN_vjp beside it.
    std::vector<std::string> checkable;
    auto has = [&](const std::string &wanted) {
      for (const rlx::runtime::EntryPoint &entry : entries)
        if (entry.name() == wanted)
          return true;
      return false;
    };
    for (const rlx::runtime::EntryPoint &entry : entries)
      if (has(entry.name() + "_jvp") && has(entry.name() + "_vjp"))
        checkable.push_back(entry.name());
    if (checkable.size() == 1)
      return artifact.entry_point(checkable.front());
    std::string names;
    for (const std::string &fn : checkable)
      names += (names.empty() ? "" : ", ") + fn;
    throw ToolError(
        checkable.empty()
            ? "'" + artifact.path() +
                  "' has no entry point FN with FN_jvp and FN_vjp; compile "
                  "it with rlxc --check-grads=FN"
            : "'" + artifact.path() + "' has gradient entry points for " +
                  std::to_string(checkable.size()) + " functions (" + names +
                  "); choose one with --fn");
  }
  if (entries.size() == 1)
    return entries.front();
  std::string names;
  for (const rlx::runtime::EntryPoint &entry : entries)
    names += (names.empty() ? "" : ", ") + entry.name();
  throw ToolError("'" + artifact.path() + "' has " +
                  std::to_string(entries.size()) + " entry points (" +
                  (names.empty() ? "none" : names) + "); choose one with --fn");
}

/// Reads the --input files into call order: named ones by name, the others
/// into the remaining positions in order.
std::vector<rlx::runtime::HostTensor>
readInputs(const rlx::runtime::EntryPoint &entry,
           const std::vector<std::string> &arguments) {
  std::vector<rlx::runtime::TensorSpec> specs = entry.inputs();
  std::vector<rlx::runtime::HostTensor> inputs(specs.size());
  std::vector<std::string> unnamed;
  for (const std::string &argument : arguments) {
    auto [name, file] = splitInput(argument);
    if (name.empty()) {
      unnamed.push_back(file);
      continue;
    }
    size_t index = entry.find_input(name);
    if (inputs[index])
      throw ToolError("input '" + name + "' is given twice");
    inputs[index] = rlx::runtime::HostTensor::read_npy(file);
  }
  size_t next = 0;
  for (const std::string &file : unnamed) {
    while (next < inputs.size() && inputs[next])
      ++next;
    if (next == inputs.size())
      throw ToolError("too many inputs: entry point '" + entry.name() +
                      "' takes " + std::to_string(specs.size()) + " (" +
                      joinNames(specs) + ")");
    inputs[next] = rlx::runtime::HostTensor::read_npy(file);
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i])
      throw ToolError("missing input '" + specs[i].name + "' (" +
                      specs[i].to_string() + ") of entry point '" +
                      entry.name() + "'; pass it with --input " +
                      specs[i].name + "=FILE.npy");
  return inputs;
}

void printBenchmark(const rlx::runtime::Session &session,
                    const std::string &entry,
                    const std::vector<rlx::runtime::HostTensor> &inputs,
                    int runs) {
  using Clock = std::chrono::steady_clock;
  session.call(entry, inputs); // Warm-up.
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    session.call(entry, inputs);
    times.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  double median =
      times.size() % 2
          ? times[times.size() / 2]
          : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  std::printf("benchmark: %d calls of '%s': median %.4f ms, min %.4f ms, "
              "max %.4f ms\n",
              runs, entry.c_str(), median, times.front(), times.back());
}

void run(const Options &options) {
  rlx::runtime::Artifact artifact = rlx::runtime::Artifact::load(options.model);
  rlx_device_t device = chosenDevice(options);
  if (options.info) {
    printInfo(artifact, device);
    return;
  }
  rlx::runtime::EntryPoint entry =
      chooseEntryPoint(artifact, options.function, options.check_grads);
  std::string name = entry.name();
  size_t outputCount = entry.outputs().size();
  if (!options.output.empty()) {
    if (outputCount != 1)
      throw ToolError("entry point '" + name + "' has " +
                      std::to_string(outputCount) + " outputs (" +
                      joinNames(entry.outputs()) +
                      "); --output writes exactly one, use --outputs "
                      "FILE.safetensors");
    checkNoOverwrite(options, options.output);
  }
  if (!options.outputs.empty())
    checkNoOverwrite(options, options.outputs);

  if (options.threads > 0)
    rlx_set_num_threads(options.threads);
  rlx::runtime::Session session(artifact, device);
  for (const std::string &file : options.weights)
    session.bind_safetensors(file, options.allowUnusedWeights);
  rlx::runtime::Communicator replicas;
  if (!options.replicas.empty()) {
    // NCCL's processes find each other through MPI under mpirun.
    bool underMpirun = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
    if (options.replicas == "mpi")
      replicas = rlx::runtime::Communicator::mpi();
    else if (options.replicas == "nccl")
      replicas = rlx::runtime::Communicator::nccl(
          underMpirun ? rlx::runtime::Communicator::mpi()
                      : rlx::runtime::Communicator::single());
    else
      replicas = rlx::runtime::Communicator::single();
    rlx::runtime::set_communicator(session, replicas);
  }
  // Under mpirun every replica makes the same calls (the collectives pair
  // them up); replica 0 alone prints and writes.
  if (replicas && replicas.rank() != 0) {
    std::vector<rlx::runtime::HostTensor> inputs =
        readInputs(entry, options.inputs);
    int calls = 1 + (options.benchmark > 0 ? 1 + options.benchmark : 0);
    for (int i = 0; i < calls; ++i)
      session.call(name, inputs);
    return;
  }
  std::vector<rlx::runtime::HostTensor> inputs =
      readInputs(entry, options.inputs);

  if (options.check_grads) {
    rlx::runtime::GradCheckOptions check;
    check.eps = options.eps;
    check.rtol = options.rtol;
    check.atol = options.atol;
    check.seed = options.seed;
    check.directions = options.directions;
    rlx::runtime::GradCheckResult result =
        rlx::runtime::check_grads(session, name, inputs, check);
    std::printf("%s", result.summary().c_str());
    if (!result.passed())
      throw GradCheckFailed();
    return;
  }

  rlx::runtime::TensorList outputs = session.call(name, inputs);
  for (size_t i = 0; i < outputs.size(); ++i)
    printOutput(outputs.name(i), outputs.at(i));
  if (!options.output.empty())
    outputs.at(0).write_npy(options.output);
  if (!options.outputs.empty())
    outputs.write_safetensors(options.outputs);
  if (options.benchmark > 0)
    printBenchmark(session, name, inputs, options.benchmark);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  CLI::App app{"Runs an entry point of an rlx artifact on .npy inputs."};
  app.add_option("model", options.model, "The artifact (model.so)")->required();
  app.add_option("--fn", options.function,
                 "Entry point to call (optional if there is only one)");
  app.add_option("--weights", options.weights,
                 "A safetensors file to bind, memory-mapped (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--input", options.inputs,
                 "An input as [NAME=]FILE.npy; unnamed ones fill the "
                 "remaining inputs in order (repeatable)")
      ->allow_extra_args(false);
  CLI::Option *output = app.add_option(
      "--output", options.output, "Write the single output to this .npy file");
  CLI::Option *outputs =
      app.add_option("--outputs", options.outputs,
                     "Write every output, by name, to this safetensors file");
  output->excludes(outputs);
  CLI::Option *benchmark = app.add_option("--benchmark", options.benchmark,
                 "Time N calls after one warm-up; print median/min/max ms")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", options.threads,
                 "Threads for the artifact's parallel kernels (default: every "
                 "core, or RLX_NUM_THREADS)")
      ->check(CLI::Range(1, RLX_MAX_THREADS));
  app.add_option("--device", options.device,
                 "Run on this device: cpu, vulkan, cuda or hip (default: the "
                 "one the artifact was compiled for, which any other must "
                 "be)");
  app.add_option("--replicas", options.replicas,
                 "Run the artifact's collectives over one replica (single), "
                 "every process of mpirun (mpi), or NCCL on a CUDA device per "
                 "process (nccl)")
      ->check(CLI::IsMember({"single", "mpi", "nccl"}));
  app.add_flag("--info", options.info,
               "Print the artifact's manifest and the device it runs on, and "
               "exit");
  app.add_flag("--allow-unused-weights", options.allowUnusedWeights,
               "Skip weights that no entry point uses instead of failing");
  CLI::Option *check_grads = app.add_flag(
      "--check-grads", options.check_grads,
      "Check FN's derivatives (entry points FN_jvp and FN_vjp of rlxc "
      "--check-grads=FN) against central differences at the inputs; print "
      "the errors and PASS or FAIL (exit code 1)");
  check_grads->excludes(output)->excludes(outputs)->excludes(benchmark);
  app.add_option("--eps", options.eps,
                 "--check-grads: difference step (default 1e-6 for f64, "
                 "1e-3 for f32)")
      ->needs(check_grads)
      ->check(CLI::PositiveNumber);
  app.add_option("--rtol", options.rtol,
                 "--check-grads: relative tolerance (default 1e-5 for f64, "
                 "1e-2 for f32)")
      ->needs(check_grads)
      ->check(CLI::NonNegativeNumber);
  app.add_option("--atol", options.atol,
                 "--check-grads: absolute tolerance (default 1e-7 for f64, "
                 "1e-3 for f32)")
      ->needs(check_grads)
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", options.seed,
                 "--check-grads: seed of the random directions (default 0)")
      ->needs(check_grads);
  app.add_option("--directions", options.directions,
                 "--check-grads: random directions to check (default 1)")
      ->needs(check_grads)
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }

  try {
    run(options);
    return 0;
  } catch (const GradCheckFailed &) {
    return 1;
  } catch (const std::exception &error) {
    // rlx::runtime::RuntimeError, ToolError, or std::bad_alloc and kin.
    std::fprintf(stderr, "rlx-run: error: %s\n", error.what());
  }
  return 1;
}
