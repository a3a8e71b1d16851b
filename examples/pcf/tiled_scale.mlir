// A tiled elementwise op in PCF: a workgroup loop over 16x16 tiles of a dynamic matrix, each
// tile's rows split among the subgroups, each row's columns among the subgroup's lanes.
//   layoutkit compile examples/pcf/tiled_scale.mlir --pipeline pcf-to-gpu --workgroup-size 64 --subgroup-size 16 -o out.mlir
//   layoutkit simulate out.mlir --function scale_tiles --arg src=src.npy --arg dst=dst.npy --arg tm=3 --arg tn=2 --out res
// dst[i, j] = 2 * src[i, j] + 1 on a (16 tm) x (16 tn) matrix.
func.func @scale_tiles(%src: memref<?x?xf32>, %dst: memref<?x?xf32>, %tm: index, %tn: index) -> memref<?x?xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope<linearize>) count(%tm, %tn)
    execute(%out = %dst)[%bi: index, %bj: index]
         : (!pcf.sref<?x?xf32, sync(#iree_codegen.workgroup_scope<linearize>)>) -> (memref<?x?xf32>) {
    %c16 = arith.constant 16 : index
    %row0 = arith.muli %bi, %c16 : index
    %col0 = arith.muli %bj, %c16 : index
    pcf.generic scope(#iree_gpu.subgroup_scope)
      execute[%sg: index, %nsg: index] {
      scf.for %r0 = %sg to %c16 step %nsg {
        %row = arith.addi %row0, %r0 : index
        pcf.generic scope(#iree_gpu.lane_scope)
          execute[%lane: index, %nlane: index] {
          %one = arith.constant 1.0 : f32
          %two = arith.constant 2.0 : f32
          scf.for %c = %lane to %c16 step %nlane {
            %col = arith.addi %col0, %c : index
            %x = memref.load %src[%row, %col] : memref<?x?xf32>
            %y = arith.mulf %x, %two : f32
            %z = arith.addf %y, %one : f32
            %v = vector.broadcast %z : f32 to vector<1x1xf32>
            pcf.write_slice %v into %out[%row, %col] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x?xf32, sync(#iree_codegen.workgroup_scope<linearize>)>
          }
          pcf.return
        }
      }
      pcf.return
    }
    pcf.return
  }
  return %r : memref<?x?xf32>
}
