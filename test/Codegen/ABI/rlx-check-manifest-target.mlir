// RUN: rlx-opt %s -split-input-file -verify-diagnostics --rlx-check-manifest-target
// A module bufferized for Vulkan and code-generated for the CPU by a phase
// pipeline without options is refused, naming the option that fixes it.
// RUN: rlxc %s --target=vulkan --compile-to=bufferize -o %t.vk.mlir
// RUN: not rlx-opt %t.vk.mlir --rlx-phase-codegen 2>&1 | FileCheck %s --check-prefix=PHASE
// PHASE: error: the module was prepared for target 'vulkan' (its manifest) but codegen runs for 'cpu'; run the codegen phase with {target=vulkan}
// RUN: rlx-opt %t.vk.mlir "--rlx-phase-codegen=target=vulkan" | FileCheck %s --check-prefix=VKCODE
// VKCODE: rlx_artifact_device_binaries

// expected-error @+1 {{the module was prepared for target 'vulkan' (its manifest) but codegen runs for 'cpu'; run the codegen phase with {target=vulkan}}}
module attributes {rlx.manifest = "{\22target\22:\22vulkan\22}"} {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = rlx.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %y : tensor<2xf32>
  }
}

// -----

// The same target (cpu, the default): nothing to say.
module attributes {rlx.manifest = "{\22target\22:\22cpu\22}"} {
}

// -----

// No manifest (a hand-written input): passes.
module {
}

// -----

// expected-error @+1 {{rlx.manifest records no target}}
module attributes {rlx.manifest = "{\22format\22:\22rlx-artifact\22}"} {
}

// -----

// expected-error @+1 {{rlx.manifest is not valid JSON}}
module attributes {rlx.manifest = "{"} {
}

// -----

// The CPU of the manifest (x86-64-v3) is not the one codegen compiles for
// (host, the default): the runtime would check the wrong features.
// expected-error-re @+1 {{the module was prepared for CPU 'x86-64-v3' (its manifest) but codegen compiles for '{{.+}}'; run the codegen phase with the bufferize phase's {cpu=...} and {cpu-features=...}}}
module attributes {rlx.manifest = "{\22target\22:\22cpu\22,\22cpu\22:\22x86-64-v3\22,\22cpu_features\22:[\22+avx2\22]}"} {
}
