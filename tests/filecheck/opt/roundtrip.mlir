// Every example kernel prints as text that layoutkit opt reads back to the same text, and its
// generic form (--mlir-print-op-generic) reads back to the same ops.

// RUN: layoutkit opt %examples/vector_add.mlir -o %t.vector_add.mlir
// RUN: layoutkit opt %t.vector_add.mlir | diff %t.vector_add.mlir -
// RUN: layoutkit opt %examples/vector_add.mlir --mlir-print-op-generic | layoutkit opt - | diff %t.vector_add.mlir -
// RUN: filecheck %s --check-prefix=ADD < %t.vector_add.mlir
// ADD:      gpu.func @vector_add(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) kernel {
// ADD:        %tid = gpu.thread_id x
// ADD:        scf.if %inside {
// ADD-NEXT:     %x = memref.load %a[%i] : memref<?xf32>

// RUN: layoutkit opt %examples/block_sum.mlir -o %t.block_sum.mlir
// RUN: layoutkit opt %t.block_sum.mlir | diff %t.block_sum.mlir -
// RUN: layoutkit opt %examples/block_sum.mlir --mlir-print-op-generic | layoutkit opt - | diff %t.block_sum.mlir -
// RUN: filecheck %s --check-prefix=SUM < %t.block_sum.mlir
// SUM: gpu.shuffle xor %x, %o16, %w32 : f32
// SUM: gpu.barrier

// RUN: layoutkit opt %examples/matmul_mma.mlir -o %t.matmul_mma.mlir
// RUN: layoutkit opt %t.matmul_mma.mlir | diff %t.matmul_mma.mlir -
// RUN: layoutkit opt %examples/matmul_mma.mlir --mlir-print-op-generic | layoutkit opt - | diff %t.matmul_mma.mlir -
// RUN: filecheck %s --check-prefix=MMA < %t.matmul_mma.mlir
// MMA: %as = memref.alloc() : memref<128x64xf16, #gpu.address_space<workgroup>>
// MMA: nvgpu.mma.sync (%fa, %fb, %cf) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>

// RUN: layoutkit opt %examples/softmax.mlir -o %t.softmax.mlir
// RUN: layoutkit opt %t.softmax.mlir | diff %t.softmax.mlir -
// RUN: layoutkit opt %examples/softmax.mlir --mlir-print-op-generic | layoutkit opt - | diff %t.softmax.mlir -
// RUN: filecheck %s --check-prefix=SOFTMAX < %t.softmax.mlir
// SOFTMAX: math.exp %d : f32
// SOFTMAX: gpu.subgroup_reduce

// RUN: layoutkit opt %examples/transpose_padded.mlir -o %t.transpose_padded.mlir
// RUN: layoutkit opt %t.transpose_padded.mlir | diff %t.transpose_padded.mlir -
// RUN: layoutkit opt %examples/transpose_padded.mlir --mlir-print-op-generic | layoutkit opt - | diff %t.transpose_padded.mlir -
// RUN: filecheck %s --check-prefix=PADDED < %t.transpose_padded.mlir
// PADDED: memref<32x33xf32, #gpu.address_space<workgroup>>

// RUN: layoutkit opt %examples/transpose_swizzled.mlir -o %t.transpose_swizzled.mlir
// RUN: layoutkit opt %t.transpose_swizzled.mlir | diff %t.transpose_swizzled.mlir -
// RUN: layoutkit opt %examples/transpose_swizzled.mlir --mlir-print-op-generic | layoutkit opt - | diff %t.transpose_swizzled.mlir -
// RUN: filecheck %s --check-prefix=SWIZZLED < %t.transpose_swizzled.mlir
// SWIZZLED: %sc = arith.xori %tx, %r : index
