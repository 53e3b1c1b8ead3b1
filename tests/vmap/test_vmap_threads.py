"""The active vmap levels belong to a thread, as grad mode does: another thread's ops run
unbatched (and may draw random numbers) while one thread is inside vmap."""

import threading


def test_a_vmap_in_one_thread_does_not_reach_another(torch):
    inside, done = threading.Event(), threading.Event()
    seen = {}

    def body(v):
        inside.set()
        assert done.wait(30), "the other thread did not finish"
        return v * 2

    def mapper():
        seen["mapped"] = torch.vmap(body)(torch.arange(6.0).reshape(3, 2))

    def other():
        assert inside.wait(30)
        try:
            # randomness='error' is the vmap's mode: it must not apply to this thread
            seen["rand_shape"] = tuple(torch.rand(4).shape)
            seen["sum"] = torch.ones(2, 3).sum(0)
            seen["own_vmap"] = torch.vmap(lambda r: r.sum())(torch.ones(4, 5))
        finally:
            done.set()

    threads = [threading.Thread(target=mapper), threading.Thread(target=other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert seen["rand_shape"] == (4,)
    assert seen["sum"].tolist() == [2.0, 2.0, 2.0]
    assert seen["own_vmap"].tolist() == [5.0] * 4
    assert seen["mapped"].tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]


def test_a_new_thread_starts_outside_vmap(torch):
    seen = {}

    def body(v):
        t = threading.Thread(target=lambda: seen.setdefault("row", torch.ones(3).sum()))
        t.start()
        t.join(30)
        return v + 1

    torch.vmap(body)(torch.zeros(2, 3))
    assert seen["row"].item() == 3.0
