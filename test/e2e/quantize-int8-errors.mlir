// Bad calibration input: each a clear error naming what is wrong, exit 1.
// RUN: python3 %inputs/int8_matmuls.py weights %t.w.safetensors
// RUN: python3 %inputs/int8_matmuls.py input %t.c.npy 9,37 2
// RUN: python3 %inputs/int8_matmuls.py input %t.narrow.npy 9,36 2
// RUN: head -c 100 %t.w.safetensors > %t.truncated.safetensors
// RUN: not rlxc %s --calibrate %t.c.npy -o %t.so 2>&1 | FileCheck %s --check-prefix=NOQUANT
// RUN: not rlxc %s --quantize=int8 --calibrate %t.missing.npy --weights %t.w.safetensors -o %t.so 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not rlxc %s --quantize=int8 --calibrate y=%t.c.npy --weights %t.w.safetensors -o %t.so 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not rlxc %s --quantize=int8 --calibrate %t.narrow.npy --weights %t.w.safetensors -o %t.so 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not rlxc %s --quantize=int8 --calibrate %t.c.npy -o %t.so 2>&1 | FileCheck %s --check-prefix=NOWEIGHTS
// RUN: not rlxc %s --quantize=int8 --calibrate %t.c.npy --weights %t.truncated.safetensors -o %t.so 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: not rlxc %s --quantize=int8 --calibrate %t.c.npy --weights %t.w.safetensors --calibrate-fn g -o %t.so 2>&1 | FileCheck %s --check-prefix=FN
// RUN: not rlxc %s --quantize=int8 --calibrate %t.c.npy --weights %t.w.safetensors --compile-to=simplify 2>&1 | FileCheck %s --check-prefix=PHASE
// RUN: not rlxc %s --quantize=int8 --calibrate %t.c.npy --weights %t.w.safetensors -o %t.w.safetensors 2>&1 | FileCheck %s --check-prefix=OVERWRITE
// RUN: not rlxc %s --quantize=int8 --target=vulkan -o %t.so 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not rlxc %s --quantize=int8 --value-and-grad f -o %t.so 2>&1 | FileCheck %s --check-prefix=GRAD
// RUN: not rlxc %s --quantize=int8 --calibrate %t.c.npy --weights %t.w.safetensors --calibrate-method=percentile --calibrate-percentile=0 -o %t.so 2>&1 | FileCheck %s --check-prefix=PERCENTILE
// RUN: not rlxc %s --quantize=int8 --calibrate %t.c.npy --weights %t.w.safetensors --calibrate-percentile=99 -o %t.so 2>&1 | FileCheck %s --check-prefix=PCTMETHOD
// RUN: not rlxc %s --quantize=int8 --calibrate-method=percentile -o %t.so 2>&1 | FileCheck %s --check-prefix=METHOD
// The weights file is intact after the refused overwrite.
// RUN: python3 %inputs/int8_matmuls.py weights %t.w2.safetensors
// RUN: cmp %t.w.safetensors %t.w2.safetensors

// NOQUANT: rlxc: error: --calibrate fixes int8 scales: add --quantize=int8
// MISSING: error: calibration: cannot read '{{.*}}missing.npy': no such file
// NAME: error: calibration: 'y' is not an input that the quantized ops depend on (they depend on: x)
// SHAPE: error: calibration: batch 1 (x={{.*}}narrow.npy): input 0 ('x') of entry point 'f': expected f32[?,37], got f32[9,36]
// NOWEIGHTS: error: calibration: the model reads weights: pass the safetensors file that binds them (--weights FILE)
// TRUNCATED: error: calibration: '{{.*}}truncated.safetensors' is not a valid safetensors file
// FN: error: calibration: no public function 'g' in the module
// PHASE: rlxc: error: --calibrate runs the quantization of the lower phase
// OVERWRITE: rlxc: error: the output '{{.*}}w.safetensors' would overwrite the weights
// TARGET: rlxc: error: int8 quantization is for the cpu target, not vulkan
// PERCENTILE: rlxc: error: --calibrate-percentile must be in (0, 100], not 0
// PCTMETHOD: rlxc: error: --calibrate-percentile is for --calibrate-method=percentile
// METHOD: rlxc: error: --calibrate-method is for --calibrate
// GRAD: rlxc: error: int8 quantization is for inference: compile the gradient entry points without it

// The labels are not needed to calibrate: only the inputs that the
// quantized matmuls' activations depend on are (and the weights, for the
// second one).
func.func @f(%x: tensor<?x37xf32> {rlx.name = "x"}, %labels: tensor<?xi32> {rlx.name = "labels"})
    -> (tensor<?x7xf32> {rlx.name = "y"}, tensor<?xi32> {rlx.name = "l"}) {
  %w1 = rlx.param "w1" : tensor<37x19xf32>
  %w2 = rlx.param "w2" : tensor<19x7xf32>
  %h = rlx.matmul %x, %w1 : (tensor<?x37xf32>, tensor<37x19xf32>) -> tensor<?x19xf32>
  %r = rlx.relu %h : tensor<?x19xf32>
  %y = rlx.matmul %r, %w2 : (tensor<?x19xf32>, tensor<19x7xf32>) -> tensor<?x7xf32>
  return %y, %labels : tensor<?x7xf32>, tensor<?xi32>
}
