"""DataPipes behave as PyTorch's: functional forms chain, one live iterator per IterDataPipe,
DataChunk prints as a list, and the determinism decorators refuse as PyTorch's do."""

import warnings

import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg

NAMES = [
    "IterDataPipe", "MapDataPipe", "DFIterDataPipe", "DataChunk", "functional_datapipe",
    "argument_validation", "runtime_validation", "runtime_validation_disabled",
    "non_deterministic", "guaranteed_datapipes_determinism",
]  # fmt: skip


@pytest.fixture(params=["leafgrad", "pytorch"])
def data(request):
    """torch.utils.data of the library under test."""
    warnings.simplefilter("ignore")  # PyTorch warns that DataPipes are deprecated
    return (lg if request.param == "leafgrad" else torch).utils.data


def _pipes(data, suffix):
    class Source(data.IterDataPipe):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            yield from range(self.n)

    @data.functional_datapipe(f"scale_{suffix}")
    class Scale(data.IterDataPipe):
        def __init__(self, source, k=2):
            self.source, self.k = source, k

        def __iter__(self):
            for x in self.source:
                yield x * self.k

    return Source, Scale


def test_functional_form_chains_and_names_clash(data, request):
    Source, Scale = _pipes(data, request.node.callspec.id)
    name = f"scale_{request.node.callspec.id}"
    assert list(getattr(Source(4), name)(k=3)) == [0, 3, 6, 9]
    assert isinstance(Source(1), data.IterableDataset)
    assert repr(Source(2)) == str(Source(2)) == Source.__qualname__
    with pytest.raises(Exception, match="already taken"):
        data.functional_datapipe(name)(Scale)
    with pytest.raises(AttributeError, match="no attribute 'nope"):
        Source(1).nope  # noqa: B018
    with pytest.raises(TypeError):
        len(Source(2))


def test_map_datapipe_functional_form(data, request):
    class Squares(data.MapDataPipe):
        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return 4

    name = f"plus_one_{request.node.callspec.id}"

    @data.functional_datapipe(name)
    class PlusOne(data.MapDataPipe):
        def __init__(self, source):
            self.source = source

        def __getitem__(self, i):
            return self.source[i] + 1

        def __len__(self):
            return len(self.source)

    piped = getattr(Squares(), name)()
    assert [piped[i] for i in range(len(piped))] == [1, 2, 5, 10]
    assert isinstance(piped, data.Dataset) and not isinstance(piped, data.IterableDataset)


def test_second_iterator_invalidates_the_first(data, request):
    Source, _ = _pipes(data, request.node.callspec.id + "_iter")
    pipe = Source(3)
    first = iter(pipe)
    assert next(first) == 0
    second = iter(pipe)
    assert next(second) == 0
    with pytest.raises(RuntimeError, match="invalidated because another iterator"):
        next(first)
    assert list(pipe) == list(pipe) == [0, 1, 2]


def test_data_chunk_is_a_list(data):
    chunk = data.DataChunk([1, [2, 3]])
    assert isinstance(chunk, list) and chunk == [1, [2, 3]]
    assert chunk.as_str() == "[1, [2, 3]]" and chunk.as_str("  ") == "  [1, [2, 3]]"
    assert list(chunk.raw_iterator()) == [1, [2, 3]]
    assert data.DFIterDataPipe()._is_dfpipe() is True


def test_non_deterministic_refused_under_guarantee(data):
    @data.non_deterministic
    class Shuffled(data.IterDataPipe):
        def __iter__(self):
            yield 1

    @data.non_deterministic(lambda flag: flag)
    class Maybe(data.IterDataPipe):
        def __init__(self, flag):
            self.flag = flag

        def __iter__(self):
            yield 1

    assert list(Shuffled()) == [1]
    with data.guaranteed_datapipes_determinism():
        with pytest.raises(TypeError, match="is non-deterministic, but you set"):
            Shuffled()
        with pytest.raises(TypeError, match="non-deterministic with the inputs"):
            Maybe(True)
        assert list(Maybe(False)) == [1]
    assert list(Shuffled()) == [1]
    with pytest.raises(TypeError, match="can not be decorated by non_deterministic"):
        data.non_deterministic(3)


def test_argument_validation_passes_through_and_runtime_validation_needs_iter(data):
    @data.argument_validation
    def size(pipe, k: int):
        return k

    assert size([1], "x") == "x"  # PyTorch 2.13 no longer checks argument types
    with pytest.raises(TypeError, match="Can not decorate function"):
        data.runtime_validation(lambda self: 1)


def test_runtime_validation_checks_declared_item_type():
    data = lg.utils.data

    class Ints(data.IterDataPipe[int]):
        def __init__(self, items):
            self.items = items

        @data.runtime_validation
        def __iter__(self):
            yield from self.items

    assert list(Ints([1, 2])) == [1, 2]
    with pytest.raises(RuntimeError, match="subtype of int"):
        list(Ints([1, "a"]))
    with data.runtime_validation_disabled():
        assert list(Ints([1, "a"])) == [1, "a"]


def test_every_name_exists():
    assert all(hasattr(lg.utils.data, n) for n in NAMES)
