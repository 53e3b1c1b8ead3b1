"""``SummaryWriter``: what a training loop logs, as TensorBoard event files in ``log_dir``."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _hparams, _summaries

_REFUSED = (
    "leafgrad records no model graph, audio, video, meshes or embeddings for TensorBoard; log "
    "scalars, histograms, text, images and figures, or use PyTorch for {}"
)


class FileWriter:
    """One event file in ``log_dir``: summaries written as events with a step and a time."""

    def __init__(self, log_dir, max_queue: int = 10, flush_secs: int = 120, filename_suffix=""):
        log_dir = str(log_dir)
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        self.event_writer.reopen()


class SummaryWriter:
    """Log scalars, histograms, text, images and figures for TensorBoard. ``log_dir``
    defaults to ``runs/<month day_hour-minute-second>_<host><comment>``, as PyTorch's."""

    def __init__(
        self,
        log_dir=None,
        comment: str = "",
        purge_step=None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers = None
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        """The main event file, (re)opened on first use; a ``purge_step`` marks a restart
        (TensorBoard drops the events at or after it that an earlier run left)."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step, self.purge_step = self.purge_step, None
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=_session_log_start()), step)
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    # -- what is logged --
    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False) -> None:  # fmt: skip
        summary = _summaries.scalar(tag, scalar_value, new_style, double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None) -> None:
        """Several curves on one chart: each in its own run ``<log_dir>/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = root + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(path)
            if writer is None:
                writer = self.all_writers[path] = FileWriter(
                    path, self.max_queue, self.flush_secs, self.filename_suffix
                )
            writer.add_summary(_summaries.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None) -> None:  # fmt: skip
        if isinstance(bins, str) and bins == "tensorflow":
            bins = _summaries.tensorflow_bins()
        summary = _summaries.histogram(tag, values, bins, max_bins)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(
            _summaries.text(tag, text_string), global_step, walltime
        )

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        summary = _summaries.image(tag, img_tensor, dataformats)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch as one tiled image (``dataformats`` NCHW or NHWC)."""
        images = _summaries.as_array(img_tensor)
        if dataformats.upper() == "NHWC":
            images = images.transpose(0, 3, 1, 2)
        elif dataformats.upper() != "NCHW":
            raise ValueError(f"add_images: dataformats must be NCHW or NHWC, not {dataformats!r}")
        self.add_image(tag, _summaries.grid(images), global_step, walltime, "CHW")

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None) -> None:
        """A Matplotlib figure (or a list of them, tiled), drawn to an image."""
        if isinstance(figure, list):
            pixels = [_summaries.figure_pixels(f, close) for f in figure]
            import numpy as np  # why: stacking several figures only

            self.add_image(tag, _summaries.grid(np.stack(pixels)), global_step, walltime, "CHW")
            return
        self.add_image(tag, _summaries.figure_pixels(figure, close), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None) -> None:  # fmt: skip
        """One run's hyperparameters and final metrics for the HParams dashboard, in the run
        ``<log_dir>/<run_name>`` (default: the time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = _hparams.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run) as writer:
            for summary in summaries:
                writer.file_writer.add_summary(summary, global_step)
            for name, value in metric_dict.items():
                writer.add_scalar(name, value, global_step)

    def _refuse(self, what: str):
        raise RuntimeError(f"SummaryWriter.{what}: " + _REFUSED.format(what))

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        self._refuse("add_graph")

    def add_embedding(self, *args, **kwargs):
        self._refuse("add_embedding")

    def add_audio(self, *args, **kwargs):
        self._refuse("add_audio")

    def add_video(self, *args, **kwargs):
        self._refuse("add_video")

    def add_mesh(self, *args, **kwargs):
        self._refuse("add_mesh")

    # -- files --
    def flush(self) -> None:
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _session_log_start():
    # why: the SessionLog proto is needed only to mark a purge
    from tensorboard.compat.proto.event_pb2 import SessionLog

    return SessionLog(status=SessionLog.START)
