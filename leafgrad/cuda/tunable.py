"""``torch.cuda.tunable`` (TunableOp GEMM tuning), as a CPU-only build of PyTorch has it:
every switch fails because the CUDA binding is absent."""

from __future__ import annotations

from ._refusals import missing_binding

_BINDINGS = {
    "enable": "_cuda_tunableop_enable",
    "is_enabled": "_cuda_tunableop_is_enabled",
    "tuning_enable": "_cuda_tunableop_tuning_enable",
    "tuning_is_enabled": "_cuda_tunableop_tuning_is_enabled",
    "record_untuned_enable": "_cuda_record_untuned_enable",
    "record_untuned_is_enabled": "_cuda_record_untuned_is_enabled",
    "set_max_tuning_duration": "_cuda_tunableop_set_max_tuning_duration",
    "get_max_tuning_duration": "_cuda_tunableop_get_max_tuning_duration",
    "set_max_tuning_iterations": "_cuda_tunableop_set_max_tuning_iterations",
    "get_max_tuning_iterations": "_cuda_tunableop_get_max_tuning_iterations",
    "set_filename": "_cuda_tunableop_set_filename",
    "get_filename": "_cuda_tunableop_get_filename",
    "get_results": "_cuda_tunableop_get_results",
    "get_validators": "_cuda_tunableop_get_validators",
    "read_file": "_cuda_tunableop_read_file",
    "tune_gemm_in_file": "_cuda_tunableop_is_enabled",
    "set_rotating_buffer_size": "_cuda_tunableop_set_rotating_buffer_size",
    "get_rotating_buffer_size": "_cuda_tunableop_get_rotating_buffer_size",
    "set_numerical_check_tolerances": "_cuda_tunableop_set_numerical_check_tolerances",
}
globals().update({name: missing_binding(name, binding) for name, binding in _BINDINGS.items()})


def mgpu_tune_gemm_in_file(filename_pattern: str, num_gpus: int) -> None:
    """Tune GEMMs over several GPUs; there are none in a CPU-only build."""
    if not 1 <= num_gpus <= 0:
        raise AssertionError(f"num_gpus must be between 1 and 0, got {num_gpus}")


__all__ = [*_BINDINGS, "mgpu_tune_gemm_in_file"]
