// rlxc --quantize=int8 on convolutions: a 3x3 stride-2 padded conv
// (im2col), a depthwise 3x3 (grouped) and a 1x1 (pointwise) run in int8,
// against the quantization scheme written out as plain loops
// (int8_convs.py), dynamic and calibrated, with static shapes, a dynamic
// batch, and dynamic batch, height and width.
// RUN: python3 %inputs/int8_convs.py weights %t.w.safetensors
// RUN: python3 %inputs/int8_convs.py input %t.x.npy 2,7,6 1
// RUN: python3 %inputs/int8_convs.py input %t.calib.npy 2,7,6 2

// RUN: python3 %inputs/int8_convs.py model static > %t.static.mlir
// RUN: rlxc %t.static.mlir --quantize=int8 -o %t.static.so
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input x=%t.x.npy --outputs %t.out1.safetensors
// RUN: python3 %inputs/int8_convs.py check %t.x.npy %t.out1.safetensors | FileCheck %s
// RUN: rlxc %t.static.mlir --quantize=int8 --calibrate %t.calib.npy --weights %t.w.safetensors -o %t.static-cal.so
// RUN: rlx-run %t.static-cal.so --weights %t.w.safetensors --input x=%t.x.npy --outputs %t.out2.safetensors
// RUN: python3 %inputs/int8_convs.py check %t.x.npy %t.out2.safetensors %t.calib.npy | FileCheck %s

// RUN: python3 %inputs/int8_convs.py model dyn > %t.dyn.mlir
// RUN: rlxc %t.dyn.mlir --quantize=int8 -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --weights %t.w.safetensors --input x=%t.x.npy --outputs %t.out3.safetensors
// RUN: python3 %inputs/int8_convs.py check %t.x.npy %t.out3.safetensors | FileCheck %s

// RUN: python3 %inputs/int8_convs.py model alldyn > %t.alldyn.mlir
// RUN: python3 %inputs/int8_convs.py input %t.x3.npy 3,5,8 4
// RUN: rlxc %t.alldyn.mlir --quantize=int8 -o %t.alldyn.so
// RUN: rlx-run %t.alldyn.so --weights %t.w.safetensors --input x=%t.x3.npy --outputs %t.out4.safetensors
// RUN: python3 %inputs/int8_convs.py check %t.x3.npy %t.out4.safetensors | FileCheck %s
// Calibration batches of two image sizes (the ranges: the largest of both).
// RUN: rlxc %t.alldyn.mlir --quantize=int8 --calibrate x=%t.calib.npy --calibrate x=%t.x3.npy --weights %t.w.safetensors -o %t.alldyn-cal.so
// RUN: rlx-run %t.alldyn-cal.so --weights %t.w.safetensors --input x=%t.x3.npy --outputs %t.out5.safetensors
// RUN: python3 %inputs/int8_convs.py check %t.x3.npy %t.out5.safetensors %t.calib.npy %t.x3.npy | FileCheck %s

// The three convs take i8 operands. On a CPU with VNNI the im2col and 1x1
// convs read their filters prepacked ([panels, k groups, 128] params the
// prepare entry packs); the depthwise one is a generic contraction.
// RUN: rlxc %t.dyn.mlir --quantize=int8 --cpu=znver4 --compile-to=lower | FileCheck %s --check-prefix=LOWER
// LOWER: linalg.generic {{.*}} ins({{.*}}xi8>, {{.*}}x7x128xi8>) outs({{.*}}xi32>) attrs = {rlx.packed_rhs}
// LOWER: linalg.generic {{.*}} ins({{.*}}xi8>, {{.*}}xi8>) outs({{.*}}xi32>) {
// LOWER: linalg.generic {{.*}} ins({{.*}}xi8>, {{.*}}x1x128xi8>) outs({{.*}}xi32>) attrs = {rlx.packed_rhs}
// LOWER: func.func @f__prepare_params
// Without VNNI they are plain int8 matmuls.
// RUN: rlxc %t.dyn.mlir --quantize=int8 --cpu=x86-64-v3 --compile-to=lower | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: rlx.packed_rhs
// PLAIN: linalg.matmul ins({{.*}}xi8>, {{.*}}xi8>) outs({{.*}}xi32>)
// PLAIN: linalg.generic {{.*}} ins({{.*}}xi8>, {{.*}}xi8>) outs({{.*}}xi32>)
// PLAIN: linalg.matmul ins({{.*}}xi8>, {{.*}}xi8>) outs({{.*}}xi32>)

// CHECK: values match the int8 reference
