//===- Passes.td - artifact ABI passes ----------------------*- tablegen -*-===//
//
// Passes that shape entry points into the artifact ABI of docs/abi.md.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_ABI_PASSES_TD
#define RLX_CODEGEN_ABI_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXCheckTensorSizes : Pass<"rlx-check-tensor-sizes", "mlir::ModuleOp"> {
  let summary = "Refuses tensor types larger than the ABI can address";
  let description = [{
    A static shape says how many bytes a buffer takes; one of more than
    2^62 bytes (`tensor<4611686018427387904xf32>`) made the allocation size
    wrap at run time and the kernel write past a small buffer. Every shaped
    type of an op result or a block argument (function inputs included)
    whose static dims and element size come to more than 2^62 bytes (the
    runtime's cap, docs/abi.md) is an error naming the type, located at the
    op or argument. Runs first in the transform and lower phases: inputs,
    then what autodiff and vmap derived (a Jacobian's size is a product).
  }];
}

def RLXPrepareParams : Pass<"rlx-prepare-params", "mlir::ModuleOp"> {
  let summary = "Moves what weights alone determine to a prepare entry point";
  let description = [{
    In each public function, the values computed from `rlx.param`s and
    constants alone by pure ops of the entry block (a transposed weight, a
    folded batch norm's scale; not a param merely reshaped) and read by the
    rest move to a new public function `FN__prepare_params` returning them.
    FN reads each as `rlx.param "rlx.prepared/FN/N"` and is tagged
    `rlx.prepare = "FN__prepare_params"`; the manifest records it and the
    runtime runs the prepare entry once per binding of weights, passing its
    outputs as those params (docs/abi.md).
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect", "mlir::func::FuncDialect"];
}

def RLXExposeParams : Pass<"rlx-expose-params", "mlir::ModuleOp"> {
  let summary = "Turns the rlx.param reads of each entry point into arguments";
  let description = [{
    Every public function with a body is an entry point. After inlining, its
    `rlx.param "name"` ops become trailing arguments (one per distinct name,
    in order of first use) marked `rlx.param = "name"`, and the function gets
    an `rlx.entry` dictionary describing its inputs, params and outputs for
    the artifact manifest. A param read by a function the entry point still
    calls is an error: inline first.
  }];
}

def RLXEnsureFreshResults : Pass<"rlx-ensure-fresh-results", "mlir::ModuleOp"> {
  let summary = "Makes every entry point result a distinct, fresh allocation";
  let description = [{
    After bufferization, the caller takes ownership of each returned buffer
    and frees it. A result that is an argument, a global, a view of one, or
    the same buffer as another result is copied into a new `memref.alloc`.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def RLXCheckManifestTarget
    : Pass<"rlx-check-manifest-target", "mlir::ModuleOp"> {
  let summary = "Refuses codegen for another target than the manifest's";
  let description = [{
    The first pass of codegen. The manifest written at bufferization records
    the target the module was prepared for; generating code for another one
    (`rlx-opt --rlx-phase-codegen` without `{target=...}` on a module that
    `rlxc --target=vulkan --compile-to=bufferize` wrote) would give an
    artifact whose code and manifest disagree. That is an error naming both
    targets and the option that fixes it; likewise for the CPU the manifest
    records (`cpu`, `cpu_features`) and the one codegen compiles for. A
    module without a manifest (a hand-written test input) passes, and so
    does one whose manifest records no CPU.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "the target codegen runs for">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"host\"",
           "the CPU codegen compiles for (LLVM's name, or host)">,
    ListOption<"cpuFeatures", "cpu-features", "std::string",
               "CPU features added (+name) or removed (-name)">
  ];
}

def RLXInsertDebugChecks : Pass<"rlx-insert-debug-checks", "mlir::ModuleOp"> {
  let summary = "Checks every rlx op's float result for NaN and Inf (rlxc --debug-checks)";
  let description = [{
    Runs only for `rlxc --debug-checks` (`JitOptions::debug_checks`), in the
    lower phase just before `convert-rlx-to-linalg`, so each check sits on an
    rlx op's own result, named by the op: fusion later merges the op's
    kernels but not the check's reduction into them. After each rlx op with
    a float tensor result (constants excepted), a reduction computes one
    code for the whole tensor (0 finite, 1 -inf, 2 +inf, 3 NaN; the largest
    wins) and a `cf.assert` per kind fails with the op's location and name;
    rlx-runtime-checks turns them into a status, so the first op producing a
    NaN or an Inf ends the call:

    ```mlir
    %y = rlx.log %x : (tensor<?xf32>) -> tensor<?xf32>
    // followed by
    %code = linalg.generic {iterator_types = ["reduction"]} ins(%y ...)
            outs(%zero : tensor<i32>) { ... arith.maxsi ... }
    %c = tensor.extract %code[] : tensor<i32>
    cf.assert %not_nan, "model.mlir:14:9: rlx.log produced a NaN"
    cf.assert %not_pos, "model.mlir:14:9: rlx.log produced +inf"
    cf.assert %not_neg, "model.mlir:14:9: rlx.log produced -inf"
    ```

    CPU only: on a GPU target the code would be read on the host from
    device memory (PipelineOptions::validate refuses the combination).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect"];
}

def RLXRuntimeChecks : Pass<"rlx-runtime-checks", "mlir::ModuleOp"> {
  let summary = "Turns cf.assert into calls that report the message as a status";
  let description = [{
    Replaces every `cf.assert %ok, "msg"` by `scf.if (!ok)` calling
    `rlx_check_failed(msg)` (rlx-return-on-failure defines it over the
    runtime's `rlx_artifact_error_hook` and returns from the entry code
    after it), so a failed run-time check ends the call with the message
    instead of abort().
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::scf::SCFDialect",
                           "mlir::func::FuncDialect", "mlir::arith::ArithDialect"];
}

def RLXStoreResultsEarly : Pass<"rlx-store-results-early", "mlir::ModuleOp"> {
  let summary = "Functions with many results store each where it is made";
  let description = [{
    Runs on the LLVM dialect, after rlx-return-on-failure. A function
    returning a struct of more than 4 fields whose every caller stores the
    whole result to a pointer argument of its own (the C interface wrapper)
    takes that pointer as a new first argument instead and returns nothing:
    each field that its return builds with insertvalues is stored right
    after the field's definition, and any other returned struct (a failed
    call's zeros) is stored whole before the return. The callers pass their
    pointer and drop their store. The memory written is the same, so the
    artifact ABI is unchanged; what changes is that LLVM's code generator
    no longer splits a chain of hundreds of insertvalues into all of their
    scalars (quadratic: over 5 minutes for DenseNet-121's 338 prepared
    weights) and no result is kept live across the rest of the function.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def RLXReturnOnFailure : Pass<"rlx-return-on-failure", "mlir::ModuleOp"> {
  let summary = "Entry code that stops and returns when a hook fails";
  let description = [{
    Runs on the LLVM dialect, last before the exported ABI. Defines the
    artifact's side of the host hooks (rlx/abi.h): `rlx_call_state`,
    `rlx_alloc`, `rlx_free`, `rlx_check_failed` and `rlx_call_failed`, over
    exported slots the runtime sets at load (without a runtime they fall
    back to the C library and abort()).

    Every function that can fail gets the call's state once, at its entry,
    and after each failure point a branch out:
    - an allocation (with `host-allocations`, the generic
      `_mlir_memref_to_llvm_*` calls become `rlx_alloc`/`rlx_free` with the
      state; a null block fails);
    - `rlx_check_failed` (rlx-runtime-checks), which always fails;
    - a call of a device or collective helper, or of a function that can
      fail, after which `rlx_call_failed` is asked.
    At the top level of a function the branch goes to a block that returns
    zeros; the runtime ignores the outputs of a failed call. Inside an
    OpenMP region it skips the rest of the iteration (the region's own
    terminator), and after the region the state is asked again: a worker's
    failure is reported by the thread that entered the call. Nothing is
    freed on the way out: the runtime frees what the call allocated.
  }];
  let options = [
    Option<"hostAllocations", "host-allocations", "bool", /*default=*/"true",
           "Route the generic allocation functions through the runtime's "
           "host allocation hooks (false on GPU targets, whose allocations "
           "are device memory)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def RLXBuildManifest : Pass<"rlx-build-manifest", "mlir::ModuleOp"> {
  let summary = "Writes the artifact manifest into the module";
  let description = [{
    Collects the `rlx.entry` dictionary of every entry point, adds the bytes
    of its static temporary allocations as `workspace_bytes`, and stores the
    manifest JSON of docs/abi.md as the module attribute `rlx.manifest`,
    with the target triple, CPU and required CPU features the code will be
    compiled for (`cpu`, `cpu-features`; `host` resolved to this machine's
    CPU). Marks entry points `llvm.emit_c_interface`.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "the target recorded in the manifest">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"host\"",
           "the CPU the code is compiled for (LLVM's name, or host): "
           "recorded with its triple and required features">,
    ListOption<"cpuFeatures", "cpu-features", "std::string",
               "CPU features added (+name) or removed (-name)">
  ];
}

def RLXEmitArtifactABI : Pass<"rlx-emit-artifact-abi", "mlir::ModuleOp"> {
  let summary = "Emits the artifact's exported ABI functions in LLVM dialect";
  let description = [{
    From the `rlx.manifest` module attribute: `rlx_artifact_abi_version`,
    `rlx_artifact_manifest` and, per entry point, `rlx_entry_<name>(void**)`
    unpacking the argument array and calling `_mlir_ciface_<name>`.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def RLXLowerCollectives : Pass<"rlx-lower-collectives", "mlir::ModuleOp"> {
  let summary = "Turns rlx collectives into calls of the runtime's collective hook";
  let description = [{
    Each `rlx.all_reduce`, `all_gather`, `reduce_scatter` and `broadcast`
    becomes two calls of the private `rlx_collective_<type>(kind, dtype, in,
    out, count, arg)`: a start (`RLX_COLLECTIVE_START`), moved up with the
    light ops computing its operand (reshapes, concatenations, elementwise
    ops) to just after the last other op computing it, and a wait
    (`RLX_COLLECTIVE_WAIT`) before the first op reading its result, whose
    light readers move down to where their own results are first needed;
    so a collective overlaps the compute between. `axis_index` is one call.
    The calls take 1-D views of the operand's buffer
    (`bufferization.to_buffer`) and a fresh result buffer (`memref.alloc`,
    read back with `bufferization.to_tensor restrict writable`); codes and
    arguments as `rlx_artifact_collective_hook_t` in rlx/abi.h. Gathers and
    scatters along a dim other than 0 are transposed around the call.
    `rlx-define-collective-hooks` defines the callees. Targets other than
    `cpu` refuse collectives with an error naming the op.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "the target the code is compiled for">
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect"];
}

def RLXDefineCollectiveHooks
    : Pass<"rlx-define-collective-hooks", "mlir::ModuleOp"> {
  let summary = "Defines the collective calls over the runtime's hook";
  let description = [{
    On LLVM dialect: defines each declared `rlx_collective_<type>` (what
    `rlx-lower-collectives` calls, its memrefs expanded to descriptor
    fields) to call through the exported pointer
    `rlx_artifact_collective_hook`, which the runtime sets at load, with
    the buffers' element addresses. A module without collectives gets
    nothing. With no hook set the artifact aborts: only an rlx runtime may
    call it.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // RLX_CODEGEN_ABI_PASSES_TD
