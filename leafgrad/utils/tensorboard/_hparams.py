"""The three summaries TensorBoard's HParams dashboard reads for one run: the experiment
(hyperparameter and metric names), the session's hyperparameter values, and its end."""

from __future__ import annotations

from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.plugins.hparams import metadata
from tensorboard.plugins.hparams.api_pb2 import (
    DataType,
    Experiment,
    HParamInfo,
    MetricInfo,
    MetricName,
    Status,
)
from tensorboard.plugins.hparams.plugin_data_pb2 import (
    HParamsPluginData,
    SessionEndInfo,
    SessionStartInfo,
)

from ._summaries import as_array


def _summary(tag: str, **content) -> Summary:
    data = HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
    plugin = SummaryMetadata.PluginData(
        plugin_name=metadata.PLUGIN_NAME, content=data.SerializeToString()
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=SummaryMetadata(plugin_data=plugin))])


def _kind(value) -> tuple:
    """(the Value field, the DataType) a hyperparameter is recorded as. Numbers (bools too:
    PyTorch tests for numbers first) are float64, strings strings."""
    if isinstance(value, (int, float)):
        return "number_value", "DATA_TYPE_FLOAT64"
    if isinstance(value, str):
        return "string_value", "DATA_TYPE_STRING"
    raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")


def hparams(hparam_dict: dict, metric_dict: dict, domains: dict | None = None) -> tuple:
    """``(experiment, session start, session end)`` summaries, as PyTorch's ``hparams``."""
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = domains or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                f"hparam_dict[{k}]."
            )
        if not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                f"hparam_dict[{k}]."
            )
    start = SessionStartInfo()
    infos = []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        if hasattr(value, "detach") and hasattr(value, "numpy"):  # a tensor: its first value
            value = float(as_array(value).reshape(-1)[0])
        field, kind = _kind(value)
        setattr(start.hparams[name], field, value)
        domain = None
        if name in domains:
            domain = struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: d}) for d in domains[name]]
            )
        infos.append(HParamInfo(name=name, type=DataType.Value(kind), domain_discrete=domain))
    metrics = [MetricInfo(name=MetricName(tag=k)) for k in metric_dict]
    return (
        _summary(
            metadata.EXPERIMENT_TAG,
            experiment=Experiment(hparam_infos=infos, metric_infos=metrics),
        ),
        _summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
        _summary(
            metadata.SESSION_END_INFO_TAG,
            session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS")),
        ),
    )
