// RUN: layoutkit opt --pcf-create-dispatch-config %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// RUN: layoutkit opt --pcf-create-dispatch-config="tile-sizes=256,128,64" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s --check-prefix=WIDE
// Stage 1: the pipeline, 128 threads (2x2 subgroups of 32 lanes) and the seed's 128x256x64 tile
// recorded on the function and the matmul; the matmul itself is unchanged.

// CHECK-LABEL: func.func @matmul(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-SAME:    translation_info = {pipeline = "RunClusterDistribute", workgroup_size = array<i64: 128, 1, 1>, subgroup_size = 32 : i64, workgroup_tile = array<i64: 128, 256, 64>, subgroup_split = array<i64: 2, 2>, mma_shape = array<i64: 16, 8, 16>}
// CHECK-NEXT:    %r = linalg.matmul {lowering_config = {workgroup = array<i64: 128, 256, 64>, subgroup_split = array<i64: 2, 2>}} ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>)
// CHECK-NEXT:    func.return %r
// WIDE: workgroup_tile = array<i64: 256, 128, 64>
// WIDE: lowering_config = {workgroup = array<i64: 256, 128, 64>
