//===- RuntimeModule.cpp - hetc._runtime: artifacts for Python ------------===//
//
// The native half of the `hetc` Python package: loads a .hetx artifact,
// describes it, and runs it on the chip model with the same runtime as
// `hetc run`. Tensors cross the boundary as .npy bytes, so that every
// element type keeps the conversions `hetc run` uses for .npy files. The
// compiler is not linked here: hetc.compile runs the `hetc` executable, as
// iree.compiler's tools do, which keeps LLVM's and MLIR's process-wide
// state out of the Python process.
//
//===----------------------------------------------------------------------===//

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Npy.h"
#include "runtime/run/PlanBackend.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Sram.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <memory>
#include <stdexcept>

namespace py = pybind11;
using namespace hetc;

namespace {

/// Any failure to load or run an artifact; hetc.RunError in Python.
struct RunFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(bool ok, const std::string &error) {
  if (!ok)
    throw RunFailure(error);
}

/// A binding as Python sees it: {"name", "shape", "dtype"}.
py::dict describe(const hetx::TensorBinding &binding) {
  py::dict d;
  d["name"] = binding.name();
  d["shape"] = std::vector<int64_t>(binding.shape().begin(),
                                    binding.shape().end());
  std::optional<io::ElementType> type = sim::elementTypeOf(binding.dtype());
  d["dtype"] = type ? io::typeName(*type) : std::string("unknown");
  return d;
}

py::dict unitBusy(const sim::UnitBusy &unit) {
  py::dict d;
  d["instructions"] = unit.instructions;
  d["cycles"] = unit.cycles;
  return d;
}

py::list unitsBusy(const std::vector<sim::UnitBusy> &units) {
  py::list list;
  for (const sim::UnitBusy &unit : units)
    list.append(unitBusy(unit));
  return list;
}

/// The tensors of `inputs` (name -> .npy bytes), checked against the
/// artifact's input bindings on `chip`: every name known, each input given
/// with its binding's shape, except those for which `optional` holds.
std::map<std::string, io::Tensor>
parseInputs(const hetx::Artifact &proto, const chip::ChipSpec &chip,
            const std::map<std::string, py::bytes> &inputs,
            const std::function<bool(const std::string &)> &optional = {}) {
  std::string error;
  for (const auto &[name, bytes] : inputs) {
    bool known = false;
    for (const hetx::TensorBinding &b : proto.inputs())
      known |= b.name() == name;
    if (!known)
      throw RunFailure("the artifact has no input '" + name + "'");
  }
  std::map<std::string, io::Tensor> tensors;
  for (const hetx::TensorBinding &b : proto.inputs()) {
    // The binding is checked against the chip before anything of its
    // size is allocated.
    sim::BindingLayout layout;
    check(sim::checkBinding(b, "input '" + b.name() + "'", chip, layout, error),
          error);
    auto given = inputs.find(b.name());
    if (given == inputs.end()) {
      if (optional && optional(b.name()))
        continue;
      throw RunFailure("input '" + b.name() + "' is missing");
    }
    io::Tensor tensor;
    check(io::parseNpy(std::string(given->second), "input '" + b.name() + "'",
                       tensor, error),
          error);
    std::vector<int64_t> shape(b.shape().begin(), b.shape().end());
    if (tensor.shape != shape)
      throw RunFailure("input '" + b.name() + "' has shape " +
                       io::shapeString(tensor.shape) +
                       ", but the artifact expects " + io::shapeString(shape));
    tensors[b.name()] = std::move(tensor);
  }
  return tensors;
}

/// A run's outputs as (name, .npy bytes) and its figures, after checking
/// that it took the predicted cycles.
py::tuple runResult(const hetx::Artifact &proto, const chip::ChipSpec &chip,
                    const sim::SimResult &result) {
  std::string error;
  if (result.stats.cycles != proto.predicted_cycles())
    throw RunFailure("the artifact predicts " +
                     std::to_string(proto.predicted_cycles()) +
                     " cycles, but the chip model took " +
                     std::to_string(result.stats.cycles));
  py::list outputs;
  for (const sim::NamedTensor &output : result.outputs) {
    std::string bytes;
    check(io::serializeNpy(output.tensor, bytes, error), error);
    outputs.append(py::make_tuple(output.name, py::bytes(bytes)));
  }
  const sim::SimStats &s = result.stats;
  py::dict stats;
  stats["simulated_cycles"] = s.cycles;
  stats["predicted_cycles"] = proto.predicted_cycles();
  stats["issues"] = s.instructions;
  stats["clock_mhz"] = chip.clockMHz();
  stats["sram_high_water_bytes"] = s.sramHighWater;
  stats["vector"] = unitBusy(s.vector);
  stats["slices"] = unitsBusy(s.slices);
  stats["planes"] = unitsBusy(s.planes);
  stats["switches"] = unitsBusy(s.switches);
  stats["dma"] = unitsBusy(s.dma);
  return py::make_tuple(outputs, stats);
}

/// The chip of `chipPath`, checked to be the one `proto` was built for.
chip::ChipSpec loadChipFor(const hetx::Artifact &proto,
                           const std::string &chipPath) {
  std::string error;
  chip::ChipSpec chip;
  check(chip::ChipSpec::load(chipPath, chip, error), error);
  check(artifact::checkChipMatch(proto, chip, error), error);
  return chip;
}

/// A loaded .hetx artifact.
class Artifact {
public:
  explicit Artifact(std::string path) : path(std::move(path)) {
    std::string error;
    check(artifact::readFile(this->path, proto, error), error);
  }

  py::list bindings(bool inputs) const {
    py::list list;
    for (const hetx::TensorBinding &b :
         inputs ? proto.inputs() : proto.outputs())
      list.append(describe(b));
    return list;
  }

  /// Runs on the chip of `chipPath` with `inputs` (name -> .npy bytes, one
  /// for every input), on the chip model or with `backend` "cpu" or "cuda"
  /// the kernel plan on the host or a GPU. Returns the outputs (name, .npy
  /// bytes) in binding order and the run's figures.
  py::tuple run(const std::string &chipPath,
                const std::map<std::string, py::bytes> &inputs,
                const std::string &backend) const {
    chip::ChipSpec chip = loadChipFor(proto, chipPath);
    std::map<std::string, io::Tensor> tensors =
        parseInputs(proto, chip, inputs);
    if (run::isPlanBackend(backend))
      return runPlan(backend, chip, tensors);
    sim::SimResult result;
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = sim::simulate(proto, chip, tensors, sim::SimOptions(), result,
                         error);
    }
    check(ok, error);
    return runResult(proto, chip, result);
  }

  std::string path;
  hetx::Artifact proto;

private:
  py::tuple runPlan(const std::string &backend, const chip::ChipSpec &chip,
                    const std::map<std::string, io::Tensor> &tensors) const {
    std::unique_ptr<run::PlanBackend> program;
    plan::RunResult ran;
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      program = run::PlanBackend::load(backend, proto, chip, error);
      ok = program && program->run(tensors, ran, error);
    }
    check(ok, error);
    py::list outputs;
    for (const sim::NamedTensor &output : ran.outputs) {
      std::string bytes;
      check(io::serializeNpy(output.tensor, bytes, error), error);
      outputs.append(py::make_tuple(output.name, py::bytes(bytes)));
    }
    py::dict stats;
    stats["backend"] = backend;
    stats[py::str(program->clock() + "_seconds")] = ran.stats.seconds;
    stats["kernels"] = ran.stats.kernels;
    stats["peak_buffer_bytes"] = ran.stats.peakBytes;
    return py::make_tuple(outputs, stats);
  }
};

/// Runs of one artifact step after step on one SRAM (sim::Session): the
/// inputs an output updates in place stay on the chip from step to step.
class Session {
public:
  Session(const Artifact &artifact, const std::string &chipPath)
      : proto(artifact.proto), chip(loadChipFor(proto, chipPath)) {
    std::string error;
    check(sim::load(proto, chip, program, error), error);
    session = std::make_unique<sim::Session>(program);
  }

  py::list resident() const {
    py::list pairs;
    for (const auto &[input, output] : session->resident())
      pairs.append(py::make_tuple(input, output));
    return pairs;
  }

  py::tuple step(const std::map<std::string, py::bytes> &inputs) {
    std::map<std::string, io::Tensor> tensors =
        parseInputs(proto, chip, inputs, [&](const std::string &name) {
          return session->isResident(name);
        });
    sim::SimResult result;
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = session->step(tensors, result, error);
    }
    check(ok, error);
    return runResult(proto, chip, result);
  }

  py::bytes fetch(const std::string &name) const {
    io::Tensor tensor;
    std::string error, bytes;
    check(session->fetch(name, tensor, error), error);
    check(io::serializeNpy(tensor, bytes, error), error);
    return py::bytes(bytes);
  }

private:
  // Declared in the order they depend on each other: the program refers to
  // the artifact and the chip, the session to the program.
  hetx::Artifact proto;
  chip::ChipSpec chip;
  sim::LoadedProgram program;
  std::unique_ptr<sim::Session> session;
};

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "hetc's runtime: load .hetx artifacts and run them on the chip "
            "model";
  py::register_exception<RunFailure>(m, "RunError");
  py::class_<Artifact>(m, "Artifact")
      .def(py::init<std::string>(), py::arg("path"))
      .def_readonly("path", &Artifact::path)
      .def_property_readonly(
          "chip_name", [](const Artifact &a) { return a.proto.chip().name(); })
      .def_property_readonly(
          "chip_revision",
          [](const Artifact &a) { return a.proto.chip().revision(); })
      .def_property_readonly(
          "predicted_cycles",
          [](const Artifact &a) { return a.proto.predicted_cycles(); })
      .def_property_readonly(
          "instructions",
          [](const Artifact &a) { return a.proto.instructions_size(); })
      .def_property_readonly("issues",
                             [](const Artifact &a) {
                               uint64_t issues = 0;
                               for (const hetx::Instruction &in :
                                    a.proto.instructions())
                                 issues += std::max<uint32_t>(1, in.repeat());
                               return issues;
                             })
      .def_property_readonly("inputs",
                             [](const Artifact &a) { return a.bindings(true); })
      .def_property_readonly(
          "outputs", [](const Artifact &a) { return a.bindings(false); })
      .def("run", &Artifact::run, py::arg("chip_path"), py::arg("inputs"),
           py::arg("backend"));
  py::class_<Session>(m, "Session")
      .def(py::init<const Artifact &, std::string>(), py::arg("artifact"),
           py::arg("chip_path"))
      .def_property_readonly("resident", &Session::resident)
      .def("step", &Session::step, py::arg("inputs"))
      .def("fetch", &Session::fetch, py::arg("name"));
}
