//===- ArtifactEmitter.cpp - LLVM dialect to a shared library -------------===//
///
/// \file
/// Translates the Codegen-phase module to LLVM IR, optimizes it for the
/// CPU the options name (CPUTarget.h), emits an object in process through
/// LLVM's TargetMachine and links a shared library with lld, then seals its
/// digest note (rlx/abi.h, "Integrity"): the file's size and digest, which the
/// runtime checks before dlopen. Output goes to a temporary file renamed into
/// place, so a failed compile never leaves a partial artifact behind.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/CPUTarget.h"
#include "codegen/Compiler.h"
#include "rlx/abi.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace mlir;

namespace mlir::rlx {
namespace {

LogicalResult fail(ModuleOp module, const llvm::Twine &message) {
  return module.emitError(message);
}

/// Writes the object code of `llvmModule` to `path`.
LogicalResult writeObject(ModuleOp module, llvm::Module &llvmModule,
                          llvm::TargetMachine &machine, llvm::StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail(module, "cannot write '" + path + "': " + ec.message());
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return fail(module, "the target cannot emit object files");
  pm.run(llvmModule);
  os.flush();
  return success();
}

/// Links `objectPath` into the shared library `outputPath` with lld.
LogicalResult linkSharedLibrary(ModuleOp module, llvm::StringRef objectPath,
                                llvm::StringRef outputPath) {
  std::string lld = RLX_LLD_PATH;
  if (const char *env = std::getenv("RLX_LLD"))
    lld = env;
  llvm::SmallVector<llvm::StringRef> args = {
      lld, "-shared", "--as-needed", "-o", outputPath, objectPath,
      "-L/usr/lib/x86_64-linux-gnu", "-L/lib/x86_64-linux-gnu", "-lm", "-lc",
      // Parallel kernels call libomp; --as-needed drops it elsewhere.
      "-L" RLX_OPENMP_LIBDIR, "-rpath", RLX_OPENMP_LIBDIR, "-lomp"};
  std::string builtins = RLX_CLANG_RT_BUILTINS;
  if (!builtins.empty() && llvm::sys::fs::exists(builtins))
    args.push_back(builtins);
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(lld, args, std::nullopt, {}, 0, 0, &error);
  if (rc != 0)
    return fail(module, "linking with '" + lld + "' failed" +
                            (error.empty() ? "" : ": " + error));
  return success();
}

/// Adds the digest note, unsealed (size and digest zero), in its own note
/// section; the linker gives it a PT_NOTE segment.
void addDigestNote(llvm::Module &llvmModule) {
  const rlx_artifact_digest_note_t note = RLX_ARTIFACT_DIGEST_NOTE_INITIALIZER;
  auto *bytes = reinterpret_cast<const uint8_t *>(&note);
  llvm::Constant *initializer = llvm::ConstantDataArray::get(
      llvmModule.getContext(), llvm::ArrayRef<uint8_t>(bytes, sizeof(note)));
  auto *global = new llvm::GlobalVariable(
      llvmModule, initializer->getType(), /*isConstant=*/true,
      llvm::GlobalValue::InternalLinkage, initializer, "rlx.digest_note");
  global->setSection(RLX_ARTIFACT_DIGEST_SECTION);
  global->setAlignment(llvm::Align(4));
  llvm::appendToCompilerUsed(llvmModule, {global});
}

/// Writes the size and the digest of the linked library at `path` into its
/// digest note: XXH64 of every byte with the note's descriptor still zero.
LogicalResult sealArtifact(ModuleOp module, llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return fail(module, "cannot read the linked library '" + path +
                            "': " + file.getError().message());
  llvm::StringRef bytes = (*file)->getBuffer();
  auto elf = llvm::object::ELF64LEFile::create(bytes);
  if (!elf)
    return fail(module, "the linked library is not ELF: " +
                            llvm::toString(elf.takeError()));
  auto segments = elf->program_headers();
  if (!segments)
    return fail(module, "the linked library has no program headers: " +
                            llvm::toString(segments.takeError()));
  const uint8_t *descriptor = nullptr;
  for (const auto &segment : *segments) {
    if (segment.p_type != llvm::ELF::PT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : elf->notes(segment, error)) {
      if (note.getType() != RLX_ARTIFACT_DIGEST_NOTE_TYPE ||
          note.getName() != RLX_ARTIFACT_DIGEST_NOTE_NAME)
        continue;
      llvm::ArrayRef<uint8_t> desc = note.getDesc(segment.p_align);
      if (desc.size() != 16 || descriptor ||
          !llvm::all_of(desc, [](uint8_t byte) { return byte == 0; }))
        return fail(module, "the linked library's digest note is malformed");
      descriptor = desc.data();
    }
    if (error)
      return fail(module, "the linked library has malformed notes: " +
                              llvm::toString(std::move(error)));
  }
  if (!descriptor)
    return fail(module, "the linked library has no digest note (section " +
                            llvm::Twine(RLX_ARTIFACT_DIGEST_SECTION) + ")");
  uint64_t size = bytes.size();
  uint64_t offset = reinterpret_cast<const char *>(descriptor) - bytes.data();
  uint64_t digest = llvm::xxHash64(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  // The buffer may map the file: write the 16 bytes in place, never
  // truncate a file that is mapped (SIGBUS).
  char sealed[16];
  for (int i = 0; i < 8; ++i) {
    sealed[i] = static_cast<char>(size >> (8 * i));
    sealed[8 + i] = static_cast<char>(digest >> (8 * i));
  }
  (*file).reset();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::CD_OpenExisting,
                          llvm::sys::fs::FA_Write, llvm::sys::fs::OF_None);
  if (ec)
    return fail(module, "cannot write '" + path + "': " + ec.message());
  os.seek(offset);
  os.write(sealed, sizeof(sealed));
  os.close();
  if (os.has_error())
    return fail(module, "cannot write '" + path + "': " + os.error().message());
  return success();
}

} // namespace

/// Moves the finished `temp` to `path`. Nothing or a regular file there is
/// replaced by a rename, so no reader ever sees a partial artifact; anything
/// else the user named (a device, a FIFO, a symbolic link) is written
/// through and stays what it is: renaming over `/dev/null` would delete the
/// device node, over a link would drop the link.
static std::error_code publish(llvm::StringRef temp, llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status, /*Follow=*/false) ||
      status.type() == llvm::sys::fs::file_type::regular_file)
    return llvm::sys::fs::rename(temp, path);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
      llvm::MemoryBuffer::getFile(temp, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!bytes)
    return bytes.getError();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return ec;
  os << (*bytes)->getBuffer();
  os.close();
  return os.error();
}

LogicalResult emitArtifact(ModuleOp module, const CompileOptions &options,
                           EmitKind kind, llvm::StringRef outputPath) {
  std::string error;
  FailureOr<CPUTarget> cpuTarget = resolveCPUTarget(
      options.cpu, llvm::to_vector(options.cpuFeatures), error);
  if (failed(cpuTarget))
    return fail(module, error);
  std::unique_ptr<llvm::TargetMachine> machine =
      createCPUTargetMachine(*cpuTarget, options.optLevel, error);
  if (!machine)
    return fail(module,
                "no LLVM target for " + cpuTarget->triple + ": " + error);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "rlx");
  if (!llvmModule)
    return fail(module, "translation to LLVM IR failed");
  // Export only the artifact ABI (docs/abi.md): every other definition is
  // hidden, so nothing inside an artifact interposes on or is interposed by
  // another library in the process.
  for (llvm::GlobalValue &value : llvmModule->global_values()) {
    if (value.isDeclaration() || value.hasLocalLinkage())
      continue;
    llvm::StringRef name = value.getName();
    if (!name.starts_with(RLX_ARTIFACT_SYMBOL_PREFIX) &&
        !name.starts_with(RLX_ENTRY_SYMBOL_PREFIX))
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  addDigestNote(*llvmModule);
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  auto optimize = makeOptimizingTransformer(options.optLevel, 0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return fail(module, "LLVM optimization failed: " +
                            llvm::toString(std::move(err)));

  // Write next to the output, then rename: no partial file on failure.
  llvm::SmallString<128> temp;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          outputPath + ".tmp-%%%%%%", temp))
    return fail(module, "cannot create a file next to '" + outputPath +
                            "': " + ec.message());
  auto removeTemp = llvm::make_scope_exit(
      [&] { llvm::sys::fs::remove(temp); });

  if (kind == EmitKind::LLVMIR) {
    std::error_code ec;
    llvm::raw_fd_ostream os(temp, ec);
    if (ec)
      return fail(module, "cannot write '" + temp + "': " + ec.message());
    llvmModule->print(os, nullptr);
  } else if (kind == EmitKind::Object) {
    if (failed(writeObject(module, *llvmModule, *machine, temp)))
      return failure();
  } else {
    llvm::SmallString<128> object;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("rlx", "o",
                                                                object))
      return fail(module, "cannot create a temporary object file: " +
                              ec.message());
    auto removeObject = llvm::make_scope_exit(
        [&] { llvm::sys::fs::remove(object); });
    if (failed(writeObject(module, *llvmModule, *machine, object)) ||
        failed(linkSharedLibrary(module, object, temp)) ||
        failed(sealArtifact(module, temp)))
      return failure();
  }
  if (std::error_code ec = publish(temp, outputPath))
    return fail(module, "cannot write '" + outputPath + "': " + ec.message());
  return success();
}

} // namespace mlir::rlx
