"""The ``torch.*`` names leafgrad refuses on purpose, in one declarative table.

Each entry is a feature leafgrad does not have (sparse layouts, quantization, vendor kernels,
TorchScript, ``torch.export``, symbolic shapes, dispatch keys) and the names PyTorch exposes
for it. Every name exists, so code can import and mention it; calling a function, building a
class or using a module raises, naming the feature and what to do instead. A docstring
beginning "Refused on purpose" is how ``leafgrad.coverage`` counts them.
"""

from __future__ import annotations

from ._dtype import _INT, _AbsentDtype

# feature -> (exception, what to do, function names, class names, module names)
_SPARSE = (
    "sparse layouts (every leafgrad tensor is dense and strided)",
    "keep the tensor dense (torch.zeros(...).index_put_ builds one from indices and values), "
    "or use PyTorch for sparse storage",
)
_QUANT = (
    "quantized tensors or dtypes",
    "keep float32 weights and activations, or quantize with PyTorch",
)
_KERNEL = (
    "cuDNN, MIOpen or oneDNN (mkldnn) kernels",
    "call the portable op instead (torch.nn.functional.conv2d, batch_norm, lstm, max_pool2d, "
    "...), which leafgrad computes with NumPy",
)
_JIT = (
    "TorchScript (no graph, IR, script compiler or C++ runtime)",
    "run the module eagerly in Python; torch.compile(model) returns it unchanged",
)
_EXPORT = (
    "torch.export (no graph capture)",
    "run the module eagerly, or export with PyTorch",
)
_SYNC = (
    "the CUDA SyncBatchNorm kernels (no CPU kernel in PyTorch either)",
    "use torch.nn.functional.batch_norm",
)
_SYMBOLIC = (
    "symbolic shapes (sizes are always plain Python ints)",
    "use plain int, float and bool; torch.sym_int and friends accept them",
)
_DISPATCH = (
    "a dispatcher (no dispatch keys; every op is a Python function on NumPy)",
    "call the ops directly",
)

_SPARSE_ONLY = (
    "sparse tensors, the only ones PyTorch's native_norm takes (Could not run "
    "'aten::native_norm' with arguments from the 'CPU' backend)",
    "use torch.linalg.vector_norm",
)
_REMOVED = (
    "such function: PyTorch removed it after deprecating it in 1.9 (it raises there too)",
    "use torch.linalg.solve, torch.linalg.lstsq, torch.linalg.eig, torch.linalg.eigh or "
    "torch.linalg.matrix_rank",
)
_LOBPCG = (
    "LOBPCG eigensolver",
    "use torch.linalg.eigh (dense symmetric) and keep the k eigenpairs needed",
)

TABLE = [
    (_SPARSE, RuntimeError, [
        "sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
        "sparse_bsc_tensor", "sparse_compressed_tensor", "hspmm", "hsmm", "saddmm",
        "indices_copy", "values_copy", "crow_indices_copy", "col_indices_copy",
        "ccol_indices_copy", "row_indices_copy"], [], []),
    (_QUANT, RuntimeError, [
        "quantize_per_tensor", "quantize_per_channel", "quantize_per_tensor_dynamic",
        "fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine",
        "fused_moving_avg_obs_fake_quant", "choose_qparams_optimized", "empty_quantized",
        "fbgemm_linear_fp16_weight", "fbgemm_linear_fp16_weight_fp32_activation",
        "fbgemm_linear_int8_weight", "fbgemm_linear_int8_weight_fp32_activation",
        "fbgemm_linear_quantize_weight", "fbgemm_pack_gemm_matrix_fp16",
        "fbgemm_pack_quantized_matrix", "quantized_batch_norm", "quantized_gru_cell",
        "quantized_lstm_cell", "quantized_max_pool1d", "quantized_max_pool2d",
        "quantized_max_pool3d", "quantized_rnn_relu_cell", "quantized_rnn_tanh_cell"],
        ["qscheme"], []),
    (_KERNEL, NotImplementedError, [
        "cudnn_affine_grid_generator", "cudnn_batch_norm", "cudnn_convolution",
        "cudnn_convolution_add_relu", "cudnn_convolution_relu", "cudnn_convolution_transpose",
        "cudnn_grid_sampler", "miopen_batch_norm", "miopen_convolution",
        "miopen_convolution_add_relu", "miopen_convolution_relu",
        "miopen_convolution_transpose", "miopen_ctc_loss", "miopen_depthwise_convolution",
        "miopen_rnn", "mkldnn_adaptive_avg_pool2d", "mkldnn_convolution",
        "mkldnn_linear_backward_weights", "mkldnn_max_pool2d", "mkldnn_max_pool3d",
        "mkldnn_rnn_layer"], [], []),
    (_SYNC, NotImplementedError, [
        "batch_norm_backward_elemt", "batch_norm_backward_reduce", "batch_norm_elemt",
        "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts", "batch_norm_stats",
        "batch_norm_update_stats"], [], []),
    (_JIT, RuntimeError, [
        "parse_ir", "parse_schema", "parse_type_comment", "import_ir_module",
        "import_ir_module_from_buffer", "merge_type_from_type_comment", "unify_type_list"], [
        "AliasDb", "AnyType", "Argument", "ArgumentSpec", "AwaitType", "BenchmarkConfig",
        "BenchmarkExecutionStats", "Block", "BoolType", "BufferDict", "CallStack", "Capsule",
        "ClassType", "Code", "CompilationUnit", "CompleteArgumentSpec", "ComplexType",
        "ConcreteModuleType", "ConcreteModuleTypeBuilder", "DeepCopyMemoTable",
        "DeserializationStorageContext", "DeviceObjType", "DictType", "EnumType",
        "ErrorReport", "ExecutionPlan", "FileCheck", "FloatType", "FunctionSchema",
        "FutureType", "Gradient", "Graph", "GraphExecutorState", "IODescriptor",
        "InferredType", "IntType", "InterfaceType", "ListType", "LiteScriptModule",
        "LockingLogger", "ModuleDict", "Node", "NoneType", "NoopLogger", "NumberType",
        "OperatorInfo", "OptionalType", "ParameterDict", "PyObjectType", "PyTorchFileReader",
        "PyTorchFileWriter", "RRefType", "ScriptClass", "ScriptClassFunction", "ScriptDict",
        "ScriptDictIterator", "ScriptDictKeyIterator", "ScriptFunction", "ScriptList",
        "ScriptListIterator", "ScriptMethod", "ScriptModule", "ScriptModuleSerializer",
        "ScriptObject", "ScriptObjectProperty", "SerializationStorageContext", "StaticModule",
        "StreamObjType", "StringType", "SymBoolType", "SymIntType", "TensorType",
        "ThroughputBenchmark", "TracingState", "TupleType", "Type", "UnionType", "Use",
        "Value"], ["cpp"]),
    (_EXPORT, RuntimeError, [], [], ["export"]),
    (_SPARSE_ONLY, NotImplementedError, ["native_norm"], [], []),
    (_LOBPCG, NotImplementedError, ["lobpcg"], [], []),
    (_REMOVED, RuntimeError, ["solve", "lstsq", "eig", "symeig", "matrix_rank"], [], []),
    (_SYMBOLIC, TypeError, [], ["SymInt", "SymFloat", "SymBool"], []),
    (_DISPATCH, RuntimeError, [], [
        "DispatchKey", "DispatchKeySet", "ExcludeDispatchKeyGuard", "DisableTorchFunction",
        "DisableTorchFunctionSubclass", "Tag"], []),
]  # fmt: skip


def _message(name: str, feature: tuple) -> str:
    what, instead = feature
    return f"torch.{name}: leafgrad has no {what}; {instead}"


def _function(name: str, feature: tuple, exc: type):
    message = _message(name, feature)

    def refused(*args, **kwargs):
        raise exc(message)

    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = f"Refused on purpose: {message}."
    return refused


def _class(name: str, feature: tuple, exc: type):
    message = _message(name, feature)

    def __init__(self, *args, **kwargs):
        raise exc(message)

    return type(name, (), {"__init__": __init__, "__doc__": f"Refused on purpose: {message}.",
                           "__module__": "torch"})  # fmt: skip


class _RefusedModule:
    """A stand-in for a PyTorch submodule leafgrad lacks: any attribute raises."""

    def __init__(self, name: str, feature: tuple, exc: type) -> None:
        self.__name__ = f"torch.{name}"
        self._exc, self._message = exc, _message(name, feature)
        self.__doc__ = f"Refused on purpose: {self._message}."

    def __getattr__(self, attribute: str):
        if attribute.startswith("_"):  # what inspect, copy and hasattr probe: not there
            raise AttributeError(attribute)
        raise self._exc(f"{self._message} (asked for {self.__name__}.{attribute})")

    def __call__(self, *args, **kwargs):
        raise self._exc(self._message)

    def __repr__(self) -> str:
        return f"<refused module {self.__name__!r}>"


def _build() -> dict:
    names: dict = {}
    for feature, exc, functions, classes, modules in TABLE:
        names.update({n: _function(n, feature, exc) for n in functions})
        names.update({n: _class(n, feature, exc) for n in classes})
        names.update({n: _RefusedModule(n, feature, exc) for n in modules})
    return names


class _AbsentIntDtype(_AbsentDtype):
    """Refused on purpose: a PyTorch dtype leafgrad has no tensors of (sub-byte integers, bit
    packs, quantized integers); it exists so code can name and compare it."""

    __slots__ = ()

    def __init__(self, name: str, itemsize: int, *, signed: bool = True) -> None:
        super().__init__(name, itemsize, signed=signed)
        self._category = _INT  # integers: not floating point, not complex


def _dtypes() -> dict:
    made = {f"int{b}": _AbsentIntDtype(f"int{b}", 1) for b in range(1, 8)}
    made.update({f"uint{b}": _AbsentIntDtype(f"uint{b}", 1, signed=False) for b in range(1, 8)})
    for name, size in [("bits1x8", 1), ("bits2x4", 1), ("bits4x2", 1), ("bits8", 1),
                       ("bits16", 2), ("qint8", 1), ("quint8", 1), ("qint32", 4),
                       ("quint4x2", 1), ("quint2x4", 1)]:  # fmt: skip
        made[name] = _AbsentIntDtype(name, size, signed=name.startswith("q") and "u" not in name)
    return made


_NAMES = {**_build(), **_dtypes()}
_NAMES["bit"] = _NAMES["uint1"]  # PyTorch's alias
globals().update(_NAMES)
__all__ = sorted(_NAMES)
