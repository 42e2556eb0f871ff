//===- BuildManifest.cpp - The artifact manifest as a module attribute ----===//
///
/// \file
/// Gathers what the runtime needs to know about each entry point into the
/// manifest JSON of docs/abi.md. It runs after bufferization so that the
/// workspace figure counts real allocations.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/CPUTarget.h"
#include "codegen/ABI/Passes.h"
#include "codegen/Common/BufferAliases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXBUILDMANIFEST
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

llvm::json::Object toJSON(DictionaryAttr desc) {
  llvm::json::Array shape;
  for (Attribute d : desc.getAs<ArrayAttr>("shape"))
    shape.push_back(cast<IntegerAttr>(d).getInt());
  return llvm::json::Object{
      {RLX_MANIFEST_TENSOR_NAME, desc.getAs<StringAttr>("name").str()},
      {RLX_MANIFEST_TENSOR_DTYPE, desc.getAs<StringAttr>("dtype").str()},
      {RLX_MANIFEST_TENSOR_SHAPE, std::move(shape)}};
}

llvm::json::Array toJSON(ArrayAttr descs) {
  llvm::json::Array array;
  for (Attribute d : descs)
    array.push_back(toJSON(cast<DictionaryAttr>(d)));
  return array;
}



/// The peak bytes of statically shaped temporaries live at once in `func`,
/// walking its ops in order: an allocation is live until its dealloc (or to
/// the end when it is returned). Dynamically shaped buffers are not counted
/// (their size is known only at run time).
int64_t peakWorkspaceBytes(func::FuncOp func) {
  // Returned buffers belong to the caller: they are outputs, not workspace.
  llvm::DenseSet<Value> outputs;
  func.walk([&](func::ReturnOp ret) {
    for (Value v : ret.getOperands())
      outputs.insert(rootBuffer(v));
  });
  llvm::DenseMap<Value, int64_t> live;
  int64_t current = 0, peak = 0;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (outputs.contains(alloc.getResult()) ||
          alloc->hasAttr("rlx.arena_offset"))
        return;
      int64_t bytes = staticBytes(alloc.getType());
      live[alloc.getResult()] = bytes;
      current += bytes;
      peak = std::max(peak, current);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      auto it = live.find(rootBuffer(dealloc.getMemref()));
      if (it != live.end()) {
        current -= it->second;
        live.erase(it);
      }
    }
  });
  return peak;
}

/// The arena planned by rlx-plan-workspace plus the peak of the static
/// temporaries outside it.
int64_t workspaceBytes(func::FuncOp func) {
  int64_t arena = 0;
  if (auto planned = func->getAttrOfType<IntegerAttr>("rlx.workspace_arena"))
    arena = planned.getInt();
  return arena + peakWorkspaceBytes(func);
}

/// The most bytes of temporaries live at once before they were packed into
/// an arena (rlx-plan-workspace), or the peak itself without an arena.
int64_t workspaceLowerBound(func::FuncOp func) {
  if (auto bound = func->getAttrOfType<IntegerAttr>("rlx.workspace_lower_bound"))
    return bound.getInt();
  return peakWorkspaceBytes(func);
}

/// Drops the rlx.* attributes now recorded in the manifest, so that the
/// LLVM translation does not meet attributes it does not know.
void stripRLXAttributes(func::FuncOp func) {
  func->removeAttr("rlx.entry");
  func->removeAttr("rlx.workspace_lower_bound");
  func->removeAttr(kPrepareAttrName);
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    func.removeArgAttr(i, "rlx.name");
    func.removeArgAttr(i, "rlx.param");
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    func.removeResultAttr(i, StringAttr::get(func.getContext(), "rlx.name"));
}

struct RLXBuildManifestPass
    : mlir::rlx::impl::RLXBuildManifestBase<RLXBuildManifestPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::json::Array entries, allParams;
    llvm::StringMap<DictionaryAttr> paramsByName;
    SymbolTable symbolTable(module);
    // Params a prepare entry point makes (rlx-prepare-params) are not the
    // user's to bind: left out of the union.
    llvm::StringSet<> prepared;
    for (auto func : module.getOps<func::FuncOp>()) {
      auto name = func->getAttrOfType<StringAttr>(kPrepareAttrName);
      auto prepare = name ? symbolTable.lookup<func::FuncOp>(name) : nullptr;
      auto desc = prepare ? prepare->getAttrOfType<DictionaryAttr>("rlx.entry")
                          : DictionaryAttr();
      if (!desc)
        continue;
      for (Attribute a : desc.getAs<ArrayAttr>("outputs"))
        prepared.insert(
            cast<DictionaryAttr>(a).getAs<StringAttr>("name").getValue());
    }
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      auto entry = func->getAttrOfType<DictionaryAttr>("rlx.entry");
      if (!entry)
        continue;
      // The user's name stays in the manifest; the code gets a reserved one
      // so that a model function called `exp` or `free` cannot collide with
      // the C library the artifact links.
      std::string userName = func.getSymName().str();
      if (failed(symbolTable.rename(func, implSymbolName(userName)))) {
        func.emitOpError("cannot be renamed for the artifact");
        return signalPassFailure();
      }
      auto params = entry.getAs<ArrayAttr>("params");
      for (Attribute a : params) {
        auto p = cast<DictionaryAttr>(a);
        StringRef name = p.getAs<StringAttr>("name").getValue();
        auto [it, inserted] = paramsByName.try_emplace(name, p);
        if (inserted && !prepared.contains(name)) {
          allParams.push_back(toJSON(p));
        } else if (it->second != p) {
          func.emitOpError("expects param '")
              << name << "' to have the same dtype and shape in every entry "
                 "point";
          return signalPassFailure();
        }
      }
      llvm::json::Array constraints;
      if (auto list = entry.getAs<ArrayAttr>("dim_constraints")) {
        for (Attribute a : list) {
          auto c = cast<DictionaryAttr>(a);
          llvm::json::Array dims;
          for (Attribute d : c.getAs<ArrayAttr>("dims")) {
            auto pair = cast<ArrayAttr>(d);
            dims.push_back(llvm::json::Array{
                cast<IntegerAttr>(pair[0]).getInt(),
                cast<IntegerAttr>(pair[1]).getInt()});
          }
          constraints.push_back(llvm::json::Object{
              {RLX_MANIFEST_DIM_CONSTRAINT_DIMS, std::move(dims)},
              {RLX_MANIFEST_DIM_CONSTRAINT_SIZE,
               c.getAs<IntegerAttr>("size").getInt()}});
        }
      }
      llvm::json::Object object{
          {RLX_MANIFEST_ENTRY_NAME, userName},
          {RLX_MANIFEST_ENTRY_SYMBOL, entrySymbolName(userName)},
          {RLX_MANIFEST_ENTRY_INPUTS, toJSON(entry.getAs<ArrayAttr>("inputs"))},
          {RLX_MANIFEST_ENTRY_PARAMS, toJSON(params)},
          {RLX_MANIFEST_ENTRY_OUTPUTS,
           toJSON(entry.getAs<ArrayAttr>("outputs"))},
          {RLX_MANIFEST_ENTRY_DIM_CONSTRAINTS, std::move(constraints)},
          {RLX_MANIFEST_ENTRY_WORKSPACE_BYTES, workspaceBytes(func)},
          {RLX_MANIFEST_ENTRY_WORKSPACE_LOWER_BOUND_BYTES,
           workspaceLowerBound(func)}};
      auto prepare = func->getAttrOfType<StringAttr>(kPrepareAttrName);
      object[RLX_MANIFEST_ENTRY_PREPARE] =
          prepare ? prepare.getValue().str() : std::string();
      entries.push_back(std::move(object));
      func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
      stripRLXAttributes(func);
    }
    std::string error;
    FailureOr<CPUTarget> cpuTarget =
        resolveCPUTarget(cpu, llvm::to_vector(cpuFeatures), error);
    if (failed(cpuTarget)) {
      module.emitError(error);
      return signalPassFailure();
    }
    llvm::json::Array required;
    for (const std::string &feature : cpuTarget->required)
      required.push_back(feature);
    llvm::json::Object manifest{
        {RLX_MANIFEST_FORMAT, RLX_MANIFEST_FORMAT_NAME},
        {RLX_MANIFEST_ABI_VERSION, static_cast<int64_t>(kArtifactABIVersion)},
        {RLX_MANIFEST_TARGET, target},
        {RLX_MANIFEST_COMPILER, "rlx " RLX_VERSION_STRING},
        {RLX_MANIFEST_TARGET_TRIPLE, cpuTarget->triple},
        {RLX_MANIFEST_CPU, cpuTarget->cpu},
        {RLX_MANIFEST_CPU_FEATURES, std::move(required)},
        {RLX_MANIFEST_ENTRY_POINTS, std::move(entries)},
        {RLX_MANIFEST_PARAMS, std::move(allParams)}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(std::move(manifest));
    module->setAttr("rlx.manifest", StringAttr::get(&getContext(), text));
  }
};

} // namespace
