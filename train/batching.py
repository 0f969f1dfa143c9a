"""Length-bucketed batches shared by the trainers (no torch, no transformers)."""


def plan_batches(lengths, n_batch, rng):
    """Shuffled batches of similar length (fewer pad tokens, the same order for a
    given seed): the indices shuffled, sorted by length within chunks of 50
    batches, cut into batches, and the batches shuffled."""
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    chunk = n_batch * 50
    out = []
    for i in range(0, len(idx), chunk):
        part = sorted(idx[i : i + chunk], key=lambda j: lengths[j])
        out += [part[k : k + n_batch] for k in range(0, len(part), n_batch)]
    rng.shuffle(out)
    return out
