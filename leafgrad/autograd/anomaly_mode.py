"""``torch.autograd.anomaly_mode``: anomaly detection, importable by this path."""

from .._engine.anomaly import detect_anomaly, set_detect_anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly"]
