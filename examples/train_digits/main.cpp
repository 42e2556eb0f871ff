//===- main.cpp - Train an MLP on the digits data set with the frontend ---===//
///
/// \file
/// Reads sklearn's digits (1797 8x8 images, fetched by
/// scripts/install-deps.sh), splits it into fixed train and test sets,
/// trains a 64-64-10 MLP with one compiled train step per batch (Adam,
/// warmup then cosine, gradient clipping), draws the loss curve as SVG, and
/// writes what an inference deployment needs: the weights by name, the
/// inference model as MLIR for rlxc, and the test set as .npy files for
/// rlx-run. With `--data-parallel`, under `mpirun -np N`, each process is
/// a replica that trains on its share (`--batch` rows) of every global
/// batch of N x batch rows, gradients averaged inside the compiled step;
/// replica 0 alone prints and writes. With `--qat FORMAT` (f8e4m3fn,
/// f8e5m2, f6e3m2fn, f4e2m1fn, ...) it trains quantization-aware: the
/// forward pass reads the weight matrices rounded to FORMAT (f32 master
/// weights), and the exported and evaluated model reads them so too;
/// `--qat-activations` rounds the matmuls' inputs as well.
/// `--muon` trains with Optimizer::muon instead of Adam. `--precision
/// bf16|f16` trains in mixed precision (forward and backward in the 16-bit
/// type, f32 master weights and Adam state; f16 with dynamic loss scaling)
/// and the exported model computes in that type too.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

namespace {

struct Dataset {
  std::vector<float> x; // rows x 64, scaled to [0, 1]
  std::vector<int32_t> labels;
  size_t rows() const { return labels.size(); }
};

/// Reads the gzip'd CSV by piping it through gzip.
Dataset readDigits(const std::string &path) {
  std::ifstream probe(path);
  if (!probe)
    throw rlx::Error("cannot read '" + path +
                     "': run scripts/install-deps.sh to fetch the digits "
                     "data set");
  FILE *pipe = popen(("gzip -dc '" + path + "'").c_str(), "r");
  if (!pipe)
    throw rlx::Error("cannot run gzip");
  std::string text;
  char buffer[65536];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    text.append(buffer, n);
  if (pclose(pipe) != 0)
    throw rlx::Error("gzip failed on '" + path + "'");
  Dataset data;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string field;
    std::vector<double> row;
    while (std::getline(fields, field, ','))
      row.push_back(std::stod(field));
    if (row.size() != 65)
      throw rlx::Error("unexpected row with " + std::to_string(row.size()) +
                       " fields in '" + path + "'");
    for (int i = 0; i < 64; ++i)
      data.x.push_back(static_cast<float>(row[i] / 16.0));
    data.labels.push_back(static_cast<int32_t>(row[64]));
  }
  return data;
}

/// A small deterministic generator (the same split on every platform).
struct Rng {
  uint64_t state;
  uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  }
  template <typename T> void shuffle(std::vector<T> &v) {
    for (size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[next() % i]);
  }
};

Dataset subset(const Dataset &all, const std::vector<size_t> &rows) {
  Dataset d;
  for (size_t r : rows) {
    d.x.insert(d.x.end(), all.x.begin() + r * 64, all.x.begin() + r * 64 + 64);
    d.labels.push_back(all.labels[r]);
  }
  return d;
}

rlx::Tensor logits(rlx::Scope &s, const rlx::Tensor &x) {
  rlx::Tensor h = rlx::relu(rlx::linear(s, "fc1", x, 64));
  return rlx::linear(s, "fc2", h, 10);
}

void writeSvg(const std::string &path, const std::vector<double> &losses) {
  double hi = 0;
  for (double l : losses)
    hi = std::max(hi, l);
  std::ofstream svg(path);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
         "height=\"360\" viewBox=\"0 0 640 360\">\n"
      << "<rect width=\"640\" height=\"360\" fill=\"white\"/>\n"
      << "<line x1=\"50\" y1=\"320\" x2=\"620\" y2=\"320\" stroke=\"black\"/>\n"
      << "<line x1=\"50\" y1=\"20\" x2=\"50\" y2=\"320\" stroke=\"black\"/>\n"
      << "<text x=\"335\" y=\"350\" text-anchor=\"middle\">epoch</text>\n"
      << "<text x=\"10\" y=\"170\" transform=\"rotate(-90 10 170)\" "
         "text-anchor=\"middle\">training loss</text>\n"
      << "<text x=\"45\" y=\"25\" text-anchor=\"end\" font-size=\"10\">" << hi
      << "</text>\n"
      << "<polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"2\" "
         "points=\"";
  for (size_t i = 0; i < losses.size(); ++i) {
    double x =
        50 + 570.0 * (losses.size() > 1 ? double(i) / (losses.size() - 1) : 0);
    double y = 320 - 300.0 * (hi > 0 ? losses[i] / hi : 0);
    svg << x << "," << y << " ";
  }
  svg << "\"/>\n</svg>\n";
}

void progress(int epoch, int epochs, double loss) {
  int width = 30, done = width * epoch / epochs;
  std::printf("epoch %3d/%d [%s%s] loss %.4f\n", epoch, epochs,
              std::string(done, '#').c_str(),
              std::string(width - done, '.').c_str(), loss);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  std::string data = RLX_DIGITS_DEFAULT, out = ".", device = "cpu";
  int epochs = 30;
  int batch = 32;
  bool dataParallel = false;
  std::string qat; // a narrow float format's name, or empty
  bool qatActivations = false;
  bool muon = false;
  std::string precision = "f32";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--data" && i + 1 < argc)
      data = argv[++i];
    else if (arg == "--epochs" && i + 1 < argc)
      epochs = std::stoi(argv[++i]);
    else if (arg == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (arg == "--device" && i + 1 < argc)
      device = argv[++i];
    else if (arg == "--batch" && i + 1 < argc)
      batch = std::stoi(argv[++i]);
    else if (arg == "--data-parallel")
      dataParallel = true;
    else if (arg == "--qat" && i + 1 < argc)
      qat = argv[++i];
    else if (arg == "--qat-activations")
      qatActivations = true;
    else if (arg == "--muon")
      muon = true;
    else if (arg == "--precision" && i + 1 < argc)
      precision = argv[++i];
    else {
      std::cerr << "usage: train_digits [--data digits.csv.gz] [--epochs N] "
                   "[--out DIR] [--device cpu|vulkan|cuda|rocm] [--batch N] "
                   "[--data-parallel (under mpirun)] [--qat f8e4m3fn|f8e5m2|"
                   "f6e3m2fn|f4e2m1fn|... [--qat-activations]] [--muon] "
                   "[--precision f32|bf16|f16]\n";
      return 2;
    }
  }
  if (batch < 1) {
    std::cerr << "train_digits: --batch must be positive\n";
    return 2;
  }
  if (precision != "f32" && precision != "bf16" && precision != "f16") {
    std::cerr << "train_digits: --precision takes f32, bf16 or f16, not '"
              << precision << "'\n";
    return 2;
  }
  if (qatActivations && qat.empty()) {
    std::cerr << "train_digits: --qat-activations needs --qat FORMAT\n";
    return 2;
  }
  try {
    std::filesystem::create_directories(out);
    Dataset all = readDigits(data);
    std::vector<size_t> order(all.rows());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    Rng split{2024};
    split.shuffle(order);
    size_t testRows = all.rows() / 5;
    Dataset test = subset(all, {order.begin(), order.begin() + testRows});
    Dataset train = subset(all, {order.begin() + testRows, order.end()});
    std::printf("digits: %zu train, %zu test images\n", train.rows(),
                test.rows());

    rlx::Func loss("digits_loss", [](rlx::Scope &s) {
      rlx::Tensor x = s.input("x", {rlx::dyn, 64});
      rlx::Tensor labels = s.input("labels", {rlx::dyn}, rlx::i32);
      return rlx::cross_entropy(logits(s, x), labels);
    });
    rlx::Func predict("predict", [](rlx::Scope &s) -> std::vector<rlx::Tensor> {
      rlx::Tensor x = s.input("x", {rlx::dyn, 64});
      rlx::Tensor labels = s.input("labels", {rlx::dyn}, rlx::i32);
      rlx::Tensor z = logits(s, x);
      return {z.named("logits"), rlx::accuracy(z, labels).named("accuracy")};
    });

    // Data parallel: the replicas are mpirun's processes (one without
    // mpirun); each step's global batch is replicas x batch rows, and a
    // last incomplete one is dropped so that every share is full.
    std::shared_ptr<rlx::runtime::Communicator> replicas;
    if (dataParallel)
      replicas = std::make_shared<rlx::runtime::Communicator>(
          std::getenv("OMPI_COMM_WORLD_SIZE")
              ? rlx::runtime::Communicator::mpi()
              : rlx::runtime::Communicator::single());
    const int rank = replicas ? replicas->rank() : 0;
    const size_t globalBatch = size_t(batch) * (replicas ? replicas->size() : 1);
    int64_t stepsPerEpoch =
        dataParallel ? int64_t(train.rows() / globalBatch)
                     : int64_t((train.rows() + batch - 1) / batch);
    if (stepsPerEpoch < 1)
      throw rlx::Error("a global batch of " + std::to_string(globalBatch) +
                       " rows is more than the " +
                       std::to_string(train.rows()) + " training images");
    // Muon orthogonalizes the weight matrices' momentum (AdamW for the
    // biases); the default is Adam. Both after the same clipping.
    auto optimizer = rlx::optim::chain(
        rlx::optim::clip_by_global_norm(5.0),
        muon ? rlx::Optimizer::muon() : rlx::Optimizer::adam());
    auto schedule = rlx::Schedule::warmup(
        stepsPerEpoch,
        rlx::Schedule::cosine(0.01, epochs * stepsPerEpoch, 1e-4));
    rlx::DataParallel parallel;
    parallel.communicator = replicas;
    rlx::TrainOptions options;
    if (!qat.empty()) {
      rlx::FloatFormat format = rlx::formats::named(qat);
      options.qat = rlx::Qat{format, qatActivations};
      // The deployed model reads its weights (and activations) as training
      // saw them.
      predict = rlx::fake_quant_params(predict, format, {}, qatActivations);
      if (rank == 0)
        std::printf("quantization-aware: weights%s in %s (%s)\n",
                    qatActivations ? " and activations" : "", qat.c_str(),
                    format.str().c_str());
    }
    if (precision != "f32") {
      options.precision = precision == "bf16" ? rlx::Precision::bf16()
                                              : rlx::Precision::f16();
      // The deployed model computes as training did.
      predict = rlx::compute_in(predict, options.precision.compute);
      if (rank == 0)
        std::printf("mixed precision: %s compute, f32 master weights%s\n",
                    precision.c_str(),
                    options.precision.loss_scaling ? ", dynamic loss scaling"
                                                   : "");
    }
    rlx::TrainStep step =
        dataParallel
            ? rlx::make_train_step(loss, optimizer, schedule, parallel, options)
            : rlx::make_train_step(loss, optimizer, schedule, options);
    // On a GPU the weights and Adam's state stay on the device between
    // steps; only the batches move.
    step.jit(rlx::Device{device}).init_randn(/*seed=*/0, /*stddev=*/0.1);
    if (rank == 0 && replicas)
      std::printf("data parallel: %d replicas (%s), %d rows each per step\n",
                  replicas->size(), replicas->description().c_str(), batch);

    Rng shuffler{7};
    std::vector<size_t> rows(train.rows());
    for (size_t i = 0; i < rows.size(); ++i)
      rows[i] = i;
    std::vector<double> curve;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      shuffler.shuffle(rows);
      double total = 0;
      size_t seen = 0;
      for (int64_t t = 0; t < stepsPerEpoch; ++t) {
        // This replica's share of the global batch (all of it alone).
        size_t begin = dataParallel ? t * globalBatch + rank * batch
                                    : size_t(t) * batch;
        size_t end = std::min(rows.size(), begin + batch);
        Dataset b = subset(train, {rows.begin() + begin, rows.begin() + end});
        int64_t n = static_cast<int64_t>(b.rows());
        // Data parallel: the step's loss is already the replicas' mean.
        size_t counted = dataParallel ? globalBatch : size_t(n);
        double l = step.step({{"x", rlx::Array::from(b.x, {n, 64})},
                              {"labels", rlx::Array::from(b.labels, {n})}});
        if (step.skipped()) // loss scaling: an overflow, nothing applied
          continue;
        total += counted * l;
        seen += counted;
      }
      curve.push_back(total / seen);
      if (rank == 0)
        progress(epoch, epochs, curve.back());
    }

    if (options.precision.loss_scaling && rank == 0)
      std::printf("loss scaling: %lld of %lld steps skipped, final scale %g\n",
                  static_cast<long long>(step.skipped_steps()),
                  static_cast<long long>(step.steps_done() +
                                         step.skipped_steps()),
                  step.loss_scale());
    step.save_params(out + "/digits.safetensors"); // replica 0 only
    if (rank != 0)
      return 0;
    writeSvg(out + "/loss.svg", curve);
    predict.export_mlir(out + "/predict.mlir");
    int64_t n = static_cast<int64_t>(test.rows());
    rlx::Array testX = rlx::Array::from(test.x, {n, 64});
    rlx::Array testLabels = rlx::Array::from(test.labels, {n});
    testX.host().write_npy(out + "/test_x.npy");
    testLabels.host().write_npy(out + "/test_labels.npy");
    // Training images for int8 calibration (rlxc --calibrate), never the
    // test images the quantized model is judged on.
    std::vector<size_t> firstRows(std::min<size_t>(512, train.rows()));
    std::iota(firstRows.begin(), firstRows.end(), size_t(0));
    Dataset calibration = subset(train, firstRows);
    rlx::Array::from(calibration.x,
                     {static_cast<int64_t>(calibration.rows()), 64})
        .host()
        .write_npy(out + "/calibration_x.npy");

    rlx::Compiled model = predict.jit(rlx::Device{device});
    model.load_params(out + "/digits.safetensors");
    double accuracy =
        model.run({{"x", testX}, {"labels", testLabels}})["accuracy"].item();
    std::printf("test accuracy: %.4f (%zu images)\n", accuracy, test.rows());
    std::printf("wrote %s/loss.svg, digits.safetensors, predict.mlir, "
                "test_x.npy, test_labels.npy, calibration_x.npy\n",
                out.c_str());
    if (accuracy < 0.95) {
      std::fprintf(stderr, "train_digits: accuracy %.4f is below 0.95\n",
                   accuracy);
      return 1;
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "train_digits: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
