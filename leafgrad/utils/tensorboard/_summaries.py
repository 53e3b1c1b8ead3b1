"""The Summary protocol buffers ``SummaryWriter`` writes: scalars, histograms, text, images.

Built with TensorBoard's own protos, the fields set as PyTorch's writer sets them, so
TensorBoard reads leafgrad's event files exactly as PyTorch's.
"""

from __future__ import annotations

import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData


def as_array(value) -> np.ndarray:
    """A tensor, array, number or list as a NumPy array (a tensor's values, detached)."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return value.detach().numpy()
    return np.asarray(value)


def scalar(tag: str, value, new_style: bool = False, double_precision: bool = False) -> Summary:
    """One number: ``simple_value`` (or a float/double tensor for ``new_style``)."""
    array = as_array(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {array.size} "
            f"and {array.ndim} dimensions."
        )
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=number)])
    if double_precision:
        proto = TensorProto(double_val=[number], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[number], dtype="DT_FLOAT")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=metadata)])


def tensorflow_bins() -> np.ndarray:
    """TensorFlow's default histogram limits: +-1e-12 growing by 10% to 1e20, and 0."""
    limits = []
    v = 1e-12
    while v < 1e20:
        limits.append(v)
        v *= 1.1
    positive = np.array(limits)
    return np.concatenate([-positive[::-1], [0.0], positive])


def histogram(tag: str, values, bins, max_bins=None) -> Summary:
    """The counts of ``values`` between ``bins`` (NumPy's ``histogram`` bins), kept from the
    bin before the first non-empty one to the last (TensorBoard reads right limits only)."""
    data = as_array(values).astype(float).reshape(-1)
    if data.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(data, bins=bins)
    if max_bins is not None and len(counts) > max_bins:  # merge neighbours, as PyTorch
        group = len(counts) // max_bins
        extra = (-len(counts)) % group
        counts = np.pad(counts, (0, extra)).reshape(-1, group).sum(axis=1)
        limits = np.append(limits[:-1:group], limits[-1])
    nonzero = np.flatnonzero(counts)
    first, last = int(nonzero[0]), int(nonzero[-1])
    if first > 0:
        counts, limits = counts[first - 1 : last + 1], limits[first : last + 2]
    else:
        counts, limits = np.concatenate([[0], counts[: last + 1]]), limits[: last + 2]
    proto = HistogramProto(
        min=data.min(), max=data.max(), num=len(data), sum=data.sum(),
        sum_squares=data.dot(data), bucket_limit=limits.tolist(), bucket=counts.tolist(),
    )  # fmt: skip
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def text(tag: str, string: str) -> Summary:
    """A string for the text dashboard (markdown), under ``<tag>/text_summary``."""
    plugin = SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()
    )
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[string.encode("utf_8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    value = Summary.Value(
        tag=tag + "/text_summary", metadata=SummaryMetadata(plugin_data=plugin), tensor=proto
    )
    return Summary(value=[value])


def _hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """An image as height x width x channels (3 or 4); a gray one repeated into RGB."""
    order = dataformats.upper()
    if len(order) != array.ndim or sorted(order) != sorted(set(order)):
        raise ValueError(
            f"add_image: dataformats {dataformats!r} does not describe an array of "
            f"{array.ndim} dims (shape {array.shape}); use e.g. 'CHW', 'HWC' or 'HW'"
        )
    if "C" not in order:
        array, order = array[..., None], order + "C"
    array = np.transpose(array, [order.index(c) for c in "HWC"])
    if array.shape[2] == 1:
        array = np.repeat(array, 3, axis=2)
    return array


def image(tag: str, values, dataformats: str = "CHW") -> Summary:
    """One image: floats in [0, 1] scaled to bytes (uint8 kept), PNG-encoded with Pillow."""
    # why: Pillow comes with tensorboard; imported only when an image is written
    from PIL import Image

    array = as_array(values)
    scale = 1 if array.dtype == np.uint8 else 255
    pixels = _hwc(array, dataformats)
    pixels = np.clip(pixels * scale, 0, 255).astype(np.uint8)
    height, width, channels = pixels.shape
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    proto = Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue()
    )
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


def grid(images: np.ndarray, rows: int | None = None) -> np.ndarray:
    """A batch N x C x H x W as one C x H' x W' image, up to 8 to a row, as PyTorch tiles."""
    n, c, h, w = images.shape
    per_row = min(n, 8) if rows is None else rows
    lines = -(-n // per_row)
    canvas = np.zeros((c, lines * h, per_row * w), dtype=images.dtype)
    for i in range(n):
        r, k = divmod(i, per_row)
        canvas[:, r * h : (r + 1) * h, k * w : (k + 1) * w] = images[i]
    return canvas


def figure_pixels(figure, close: bool = True) -> np.ndarray:
    """A Matplotlib figure drawn to a C x H x W uint8 array."""
    # why: the Agg canvas is needed only for figures
    from matplotlib.backends import backend_agg

    canvas = backend_agg.FigureCanvasAgg(figure)
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    if close:
        # why: pyplot only to close the figure the caller made with it
        import matplotlib.pyplot as plt

        plt.close(figure)
    return np.transpose(rgba[..., :3], (2, 0, 1)).copy()
