//===- VectorUnit.h - One vector-unit operation, on any lane count -*- C++
//-*-===//
//
// The vector unit's operations as the instruction set defines them
// (docs/isa.md, "Numerics"): the routine of VectorMath.h or TypedMath.h
// each class, opcode and element type takes, and the rounding of the
// result to its type. The chip model applies it to one vector; the CPU
// backend to whole rows.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_VECTORUNIT_H
#define HETC_RUNTIME_SIM_VECTORUNIT_H

#include "runtime/sim/LaneMath.h"
#include "runtime/sim/Program.h"

#include <cstdint>

namespace hetc::sim {

/// The routine that computes `op`'s lanes (LaneRoutine, LaneMath.h): by
/// its class, its opcode and whether its lanes are float. computeVector()
/// calls it; the CUDA backend's device kernels pick theirs by it too.
LaneRoutine laneRoutineOf(const Op &op);

/// Computes `op` (of class VectorBinary, VectorUnary, V_CAST included,
/// VectorReduce or VectorSelect) from `src` into `out`: lanes [0, active)
/// of `width`, the rest zero.
void computeVector(const Op &op, const float *const *src, float *out,
                   uint32_t active, uint32_t width);

/// An operation of the vector unit: `opcode` (its class from opClassOf)
/// on `inType` lanes, giving `outType` lanes.
Op vectorOp(hetx::Opcode opcode, io::ElementType inType,
            io::ElementType outType);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_VECTORUNIT_H
