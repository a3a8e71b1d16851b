// out[i, j] = f_g(in[i, j]) for an n x 32 matrix, g = j floordiv 8 the column group:
// f_0(x) = x, f_1(x) = 2x, f_2(x) = -x, f_3(x) = x + 1. Block b takes rows 8b .. 8b+7;
// thread t is (row, group, column in group) = delinearize(t) into (8, 4, 8), the group picks
// its case of scf.index_switch, and affine.min clamps the last block's rows to n.
// layoutkit simulate examples/kernels/tile_select.mlir --kernel tile_select --grid 3 --block 256 \
//     --arg in=in.npy --arg out=out.npy
module {
  gpu.module @kernels {
    gpu.func @tile_select(%in: memref<?x32xf32>, %out: memref<?x32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %n = memref.dim %in, %c0 : memref<?x32xf32>
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %r, %g, %l = affine.delinearize_index %tid into (8, 4, 8) : index, index, index
      %rows = affine.min affine_map<(d0)[s0] -> (8, s0 - d0 * 8)>(%bid)[%n]
      %inside = arith.cmpi slt, %r, %rows : index
      scf.if %inside {
        %row = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%bid, %r)
        %col = affine.linearize_index disjoint [%g, %l] by (4, 8) : index
        %x = memref.load %in[%row, %col] : memref<?x32xf32>
        %y = scf.index_switch %g -> f32
        case 0 {
          scf.yield %x : f32
        }
        case 1 {
          %twice = arith.addf %x, %x : f32
          scf.yield %twice : f32
        }
        case 2 {
          %negated = arith.negf %x : f32
          scf.yield %negated : f32
        }
        default {
          %one = arith.constant 1.0 : f32
          %plus = arith.addf %x, %one : f32
          scf.yield %plus : f32
        }
        memref.store %y, %out[%row, %col] : memref<?x32xf32>
      }
      gpu.return
    }
  }
}
