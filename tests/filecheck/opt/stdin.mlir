// '-' (the default FILE) reads stdin; -o - (the default) writes stdout; -o FILE writes FILE.
// RUN: layoutkit opt - < %s | filecheck %s
// RUN: layoutkit opt < %s | filecheck %s
// RUN: cat %s | layoutkit opt --cse - -o - | filecheck %s
// RUN: layoutkit opt %s -o %t && filecheck %s < %t

module {
  func.func @twice(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    func.return %y : f32
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @twice(%x: f32) -> f32 {
// CHECK-NEXT:     %y = arith.addf %x, %x : f32
// CHECK-NEXT:     func.return %y : f32
