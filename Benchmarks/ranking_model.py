#!/usr/bin/env python3
"""A model of Searchlight's ranking in Python, for sweeping choices over the whole relevance
panel in seconds rather than a release build and an index per try (issue 60).

    python3 Benchmarks/ranking_model.py            # the model's default: the engine's ranking
    python3 -c "import sys; sys.path.insert(0, 'Benchmarks'); import ranking_model as m; \
        m.sweep([('default', {}), ('title 3', {'wt': 3}), ('BM25F', {'mode': 'bm25f', 'wt': 2})])"

It reads the panel (Cranfield, CACM, MED, LISA) with relevance.py's loaders from PANEL_DIR
(default ../shared/peer-data), tokenizes as the engine does (unicode61 folding, Snowball stems
beside the words from PyStemmer: `pip install PyStemmer numpy`), and scores with the engine's
BM25 (FTS5's summed-length form, column weights, b 0.65), a word's forms at one idf, √n for a
repeated word, the 32-rarest cap, the short-query bonus, the keyword-stuffing quality factor
and relevance feedback from the leading documents. Options (`DEFAULT`) switch each choice
(BM25F or per-field sums, weights, b, k1, idf, feedback variants, a proximity rerank, RM3 with
the request's own words) for a sweep; `paired` gives a paired bootstrap interval. It agrees
with the engine within about 0.005 nDCG@10 per collection (it has no spelling corrections):
a model for choosing what to try, never the figure of record — every kept change is measured
on the engine with relevance.py.
"""
import math, re, sys, unicodedata, collections, json, os, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import relevance
import Stemmer
ST = Stemmer.Stemmer(os.environ.get('MODEL_STEMMER', 'english'))
WORD = re.compile(r'[^\W_]+')
_fold = {}
def fold(text):
    t = unicodedata.normalize('NFKD', text.lower())
    return ''.join(c for c in t if not unicodedata.combining(c))
def tokens(text):
    return WORD.findall(fold(text))
_stem = {}
def stem(w):
    s = _stem.get(w)
    if s is None:
        s = ST.stemWord(w); _stem[w] = s
    return s
def marked(w):
    if not w.isascii() and any(ord(c) >= 0x3000 for c in w): return None
    s = stem(w)
    return None if s == w else '\x01' + s

class Index:
    def __init__(self, docs):
        self.ids = list(docs)
        self.N = len(self.ids)
        self.post = collections.defaultdict(dict)   # term -> {d: [tf_title, tf_body]}
        self.lens = []   # (title_len, body_len)
        self.toks = []
        for d, (title, body) in enumerate(docs.values()):
            tt, bt = tokens(title[:1000] or '(untitled)'), tokens(body[:16000])
            self.toks.append((tt, bt))
            self.lens.append((len(tt), len(bt)))
            for f, ts in enumerate((tt, bt)):
                for t in ts:
                    for term in (t, marked(t)):
                        if term is None: continue
                        p = self.post[term].get(d)
                        if p is None: p = self.post[term][d] = [0, 0]
                        p[f] += 1
        self.df = {t: len(p) for t, p in self.post.items()}
        self.quality = [quality(t[:1000] or '(untitled)', b[:16000]) for t, b in docs.values()]
        self.avg = [sum(l[0] for l in self.lens) / self.N, sum(l[1] for l in self.lens) / self.N]

QW = re.compile(rb'[a-zA-Z0-9\x80-\xff]+')
def qwords(text, budget):
    out = []
    for m in QW.finditer(text.encode()[:budget]):
        w = m.group(0)
        if len(w) >= 3: out.append(w.lower())
    return out
def quality(title, body):
    tw = collections.Counter(qwords(title, 8192))
    top = max(tw.values(), default=0)
    if top >= 4 and 3 * top > sum(tw.values()): return 0.5
    ws = qwords(title + ' ' + '' + ' ' + body, 8192)
    if len(ws) >= 20 and max(collections.Counter(ws).values()) > 0.25 * len(ws): return 0.5
    return 1.0

def final(ix, scores, ranked):
    window = ranked[:50]
    window = sorted(window, key=lambda d: (-scores[d] * ix.quality[d], ranked.index(d)))
    return window + ranked[50:]

PANEL_DIR = os.environ.get('PANEL_DIR', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared', 'peer-data'))
CACHE = {}
def collection(name):
    if name not in CACHE:
        docs, queries, gains = relevance.load(os.path.join(PANEL_DIR, name))
        CACHE[name] = (Index(docs), queries, gains)
    return CACHE[name]

DEFAULT = dict(k1=1.2, b=0.65, wt=10, wb=1, mode='fts5', exact=1.0, rep=0.5, cap=32, bonus=0.5, bonusTerms=3,
               fb=True, fbMin=7, fbDocs=10, fbTerms=10, fbWeight=0.5, fbMinDocs=2, fbDepth=200, idf='fts5', phrase=0.5,
               bt=0.75, bb=0.75, fbGate=None, fbRatio=0.7)

def idf(p, N, n):
    if p['idf'] == 'lucene': return math.log(1 + (N - n + 0.5) / (n + 0.5))
    v = math.log((N - n + 0.5) / (n + 0.5))
    return v if v > 0 else 1e-6

def plan(p, ix, text):
    terms, order, boosts = {}, [], []
    for word in text.split():
        ts = tokens(word)
        if not ts: continue
        for t in ts:
            if t not in terms: terms[t] = 0; order.append(t)
            terms[t] += 1
        if len(ts) > 1: boosts.append(ts)
    if len(order) > p['cap']:
        ranked = sorted(range(len(order)), key=lambda i: (ix.df.get(order[i], 0), i))
        keep = set(ranked[:p['cap']])
        order = [order[i] for i in range(len(order)) if i in keep]
    clauses = []
    for t in order:
        w = terms[t] ** p['rep']
        clauses.append(forms(p, ix, t, w))
    return clauses, boosts

def forms(p, ix, t, w):
    units = collections.OrderedDict()
    units[t] = p['exact'] * w
    m = marked(t)
    cls = []
    if m: 
        cls.append(m)
        s = m[1:]
        if marked(s) is None: cls.append(s)
    else:
        cls += [t, '\x01' + t]
    if p.get('merge'):
        out = [((t,), p['exact'] * w)] if p['exact'] else []
        return out + [(tuple(cls), w)]
    for c in cls: units[c] = units.get(c, 0) + w
    return [((k,), v) for k, v in units.items()]

import numpy as np

def arrays(ix, t):
    cache = ix.__dict__.setdefault('_arr', {})
    a = cache.get(t)
    if a is None:
        post = ix.post.get(t)
        if not post:
            a = None
        else:
            ds = np.fromiter(post.keys(), dtype=np.int64, count=len(post))
            tf = np.array(list(post.values()), dtype=np.float64)
            a = (ds, tf[:, 0], tf[:, 1])
        cache[t] = a
    return a

def dense_sat(p, ix, tt, tb):
    """Saturation for every doc given dense tf arrays (title, body)."""
    k1 = p['k1']
    if not hasattr(ix, '_lt'):
        ix._lt = np.array([l[0] for l in ix.lens], dtype=np.float64)
        ix._lb = np.array([l[1] for l in ix.lens], dtype=np.float64)
    lt, lb = ix._lt, ix._lb
    if p['mode'] == 'fts5':
        f = p['wt'] * tt + p['wb'] * tb
        D = lt + lb
        return f * (k1 + 1) / (f + k1 * (1 - p['b'] + p['b'] * D / (ix.avg[0] + ix.avg[1])))
    if p['mode'] == 'bm25f':
        Bt = 1 - p['bt'] + p['bt'] * lt / ix.avg[0]
        Bb = 1 - p['bb'] + p['bb'] * lb / ix.avg[1]
        f = p['wt'] * tt / Bt + p['wb'] * tb / Bb
        return f * (k1 + 1) / (f + k1)
    if p['mode'] == 'sum':
        out = np.zeros_like(tt)
        for f, L, avg, w, bb in ((tt, lt, ix.avg[0], p['wt'], p['bt']), (tb, lb, ix.avg[1], p['wb'], p['bb'])):
            out += w * f * (k1 + 1) / (f + k1 * (1 - bb + bb * L / avg))
        return out
    raise ValueError

def score_docs(p, ix, clauses, boosts, candidates=None, extra=()):
    """Returns {d: score} for the matching documents. clauses: list of [(terms, weight)]."""
    N = ix.N
    nterms = len(clauses)
    fade = min(1, max(0, (2 * p['bonusTerms'] - nterms) / p['bonusTerms']))
    bonus = p['bonus'] * fade
    scores = np.zeros(N)
    matched = np.zeros(N, dtype=bool)
    allc = [(c, bonus) for c in clauses] + [(c, 0) for c in extra]
    for units, cb in allc:
        cf = max(ix.df.get(t, 0) for ts, _ in units for t in ts)
        i = idf(p, N, cf)
        any_ = np.zeros(N, dtype=bool)
        for ts, w in units:
            tt = np.zeros(N); tb = np.zeros(N); hit = False
            for t in ts:
                a = arrays(ix, t)
                if a is None: continue
                hit = True
                np.add.at(tt, a[0], a[1]); np.add.at(tb, a[0], a[2])
            if not hit: continue
            m = (tt + tb) > 0
            sc = np.zeros(N)
            sc[m] = i * w * dense_sat(p, ix, tt, tb)[m]
            scores += sc
            any_ |= m
        maxw = max(w for _, w in units) * i
        scores[any_] += cb * maxw
        matched |= any_
    for ts in boosts:
        cand = set.intersection(*[set(ix.post.get(t, {})) for t in ts]) if all(t in ix.post for t in ts) else set()
        if candidates is not None: cand &= set(candidates)
        i = sum(idf(p, N, ix.df.get(t, 0)) for t in ts)
        for d in cand:
            f = [0, 0]
            for fi, seq in enumerate(ix.toks[d]):
                for j in range(len(seq) - len(ts) + 1):
                    if seq[j:j + len(ts)] == ts: f[fi] += 1
            if f[0] or f[1]:
                tt = np.zeros(1) + f[0]; tb = np.zeros(1) + f[1]
                scores[d] += p['phrase'] * i * sat(p, ix, f, d, (ix.avg[0] + ix.avg[1]))
    if candidates is not None:
        keep = np.zeros(N, dtype=bool); keep[list(candidates)] = True
        matched &= keep
    idx = np.nonzero(matched)[0]
    return dict(zip(idx.tolist(), scores[idx].tolist()))

def sat(p, ix, tf, d, avgD):
    k1 = p['k1']
    if p['mode'] == 'fts5':
        f = p['wt'] * tf[0] + p['wb'] * tf[1]
        D = ix.lens[d][0] + ix.lens[d][1]
        return f * (k1 + 1) / (f + k1 * (1 - p['b'] + p['b'] * D / avgD))
    if p['mode'] == 'bm25f':
        lt, lb = ix.lens[d]
        Bt = 1 - p['bt'] + p['bt'] * lt / ix.avg[0]
        Bb = 1 - p['bb'] + p['bb'] * lb / ix.avg[1]
        f = p['wt'] * tf[0] / Bt + p['wb'] * tf[1] / Bb
        return f * (k1 + 1) / (f + k1)
    out = 0
    for fi, (w, bb) in enumerate(((p['wt'], p['bt']), (p['wb'], p['bb']))):
        f = tf[fi]
        if f:
            L = ix.lens[d][fi]
            out += w * f * (k1 + 1) / (f + k1 * (1 - bb + bb * L / ix.avg[fi]))
    return out

def top(scores, k):
    return sorted(scores, key=lambda d: (-scores[d], d))[:k]

def search(p, ix, text):
    clauses, boosts = plan(p, ix, text)
    if not clauses: return []
    scores = score_docs(p, ix, clauses, boosts)
    first = top(scores, max(100, p['fbDepth']))
    if p.get('prox'):
        scores = proximity(p, ix, clauses, first, scores)
        first = top({d: scores[d] for d in first}, len(first))
    if p['fb'] and p.get('rm3full') and len(clauses) >= p['fbMin'] and gate(p, scores, first):
        s2 = rm3full(p, ix, text, first, scores)
        if s2 is not None:
            return final(ix, s2, top(s2, 100))
    elif p['fb'] and len(clauses) >= p['fbMin'] and gate(p, scores, first):
        docs_ = first[:p['fbDocs']]
        if p.get('fbRatio'):
            docs_ = [d for d in docs_ if scores[d] >= p['fbRatio'] * scores[first[0]]]
        exp = expansion(p, ix, docs_, scores, clauses)
        if exp:
            extra = [forms(p, ix, t, w) for t, w in exp]
            s2 = score_docs(p, ix, clauses, boosts, candidates=first, extra=extra)
            return final(ix, s2, top(s2, 100)) if p.get('quality', True) else top(s2, 100)
    return final(ix, scores, first[:100]) if p.get('quality', True) else first[:100]

def gate(p, scores, first):
    g = p['fbGate']
    if g is None: return True
    s = np.array([scores[d] for d in first[:10]])
    if len(s) < 10: return True
    z = (s[0] - s[1:].mean()) / (s[1:].std() + 1e-9)
    return z < g

def stemclass(w):
    m = marked(w)
    return m[1:] if m else w

def expansion(p, ix, best, scores, clauses):
    excluded = set()
    for units in clauses:
        for ts, _ in units:
            for t in ts: excluded.add(t[1:] if t.startswith('\x01') else t)
    total = sum(max(0, scores[d]) for d in best)
    if total <= 0: return []
    model = collections.defaultdict(float); holding = collections.Counter(); spell = collections.defaultdict(collections.Counter)
    for d in best:
        counts = collections.Counter(); length = 0
        for fi, seq in enumerate(ix.toks[d]):
            w = p['wt'] if fi == 0 else p['wb']
            for t in seq:
                c = stemclass(t); counts[c] += w; spell[c][t] += w; length += w
        share = scores[d] / total
        for c, n in counts.items():
            if len(c) < 3 or c.isdigit() or c in excluded: continue
            model[c] += share * n / length; holding[c] += 1
    ranked = sorted((c for c in model if holding[c] >= p['fbMinDocs']), key=lambda c: (-model[c], c))
    chosen = []
    for c in ranked:
        if len(chosen) >= p['fbTerms']: break
        sp = max(spell[c].items(), key=lambda kv: (kv[1], [-ord(x) for x in kv[0]]))[0]
        if ix.df.get(sp, 0) > ix.N // 2: continue
        chosen.append((sp, model[c]))
    if not chosen: return []
    bestp = chosen[0][1]
    return [(t, p['fbWeight'] * v / bestp) for t, v in chosen]

def rm3full(p, ix, text, first, scores):
    """RM3 with the request's own words in the relevance model: each word's weight becomes
    w + beta * sum(w) * P(class|R) (top fbTerms classes, P normalized over them)."""
    # original terms and weights (before forms)
    terms, order = {}, []
    for word in text.split():
        for t in tokens(word):
            if t not in terms: terms[t] = 0; order.append(t)
            terms[t] += 1
    if len(order) > p['cap']:
        ranked = sorted(range(len(order)), key=lambda i: (ix.df.get(order[i], 0), i))
        keep = set(ranked[:p['cap']]); order = [order[i] for i in range(len(order)) if i in keep]
    w = {t: terms[t] ** p['rep'] for t in order}
    best = first[:p['fbDocs']]
    total = sum(max(0, scores[d]) for d in best)
    if total <= 0: return None
    model = collections.defaultdict(float); holding = collections.Counter(); spell = collections.defaultdict(collections.Counter)
    for d in best:
        counts = collections.Counter(); length = 0
        for fi, seq in enumerate(ix.toks[d]):
            ww = p['wt'] if fi == 0 else p['wb']
            for t in seq:
                c = stemclass(t); counts[c] += ww; spell[c][t] += ww; length += ww
        share = scores[d] / total
        for c, n in counts.items():
            if len(c) < 3 or c.isdigit(): continue
            model[c] += share * n / length; holding[c] += 1
    qclass = {}
    for t in order: qclass.setdefault(stemclass(t), t)
    ranked = sorted((c for c in model if holding[c] >= p['fbMinDocs'] and (p.get('fbQuery', True) or c not in qclass)), key=lambda c: (-model[c], c))
    chosen = []
    for c in ranked:
        if len(chosen) >= p['fbTerms']: break
        sp = qclass.get(c) or max(spell[c].items(), key=lambda kv: (kv[1], [-ord(x) for x in kv[0]]))[0]
        if ix.df.get(sp, 0) > ix.N // 2: continue
        chosen.append((c, sp, model[c]))
    if not chosen: return None
    z = sum(m for _, _, m in chosen)
    scale = p['beta'] * sum(w.values())
    neww = dict(w)
    for c, sp, m in chosen:
        neww[sp] = neww.get(sp, 0) + scale * m / z
    clauses = [forms(p, ix, t, x) for t, x in neww.items()]
    boosts = []
    for word in text.split():
        ts = tokens(word)
        if len(ts) > 1: boosts.append(ts)
    # keep the bonus off for these (long requests have none); the clause count is the original
    return score_docs(dict(p, bonus=0), ix, clauses, boosts, candidates=first)

PANEL = ['cranfield', 'cacm', 'med', 'lisa']
def run(over=None, names=PANEL, per=False):
    p = dict(DEFAULT); p.update(over or {})
    out = {}
    for name in names:
        ix, queries, gains = collection(name)
        nd, rc = [], []
        for qid, text in queries:
            ranked = [ix.ids[d] for d in search(p, ix, text)]
            nd.append(relevance.ndcg(ranked, gains[qid])); rc.append(relevance.recall(ranked, gains[qid]))
        out[name] = (sum(nd) / len(nd), sum(rc) / len(rc), nd) 
    return out

def show(label, out):
    print(f"{label:40s} " + "  ".join(f"{n[:5]} {v[0]:.4f}/{v[1]:.3f}" for n, v in out.items()) +
          f"  mean {sum(v[0] for v in out.values())/len(out):.4f}", flush=True)



def _task(args):
    over, name = args
    p = dict(DEFAULT); p.update(over)
    ix, queries, gains = collection(name)
    nd, rc = [], []
    for qid, text in queries:
        ranked = [ix.ids[d] for d in search(p, ix, text)]
        nd.append(relevance.ndcg(ranked, gains[qid])); rc.append(relevance.recall(ranked, gains[qid]))
    return (sum(nd) / len(nd), sum(rc) / len(rc), nd)

def sweep(configs, names=PANEL, procs=2):
    """configs: [(label, overrides)]; prints each as it completes (in order)."""
    import multiprocessing
    tasks = [(over, n) for _, over in configs for n in names]
    with multiprocessing.Pool(procs) as pool:
        results = pool.map(_task, tasks, chunksize=1)
    out = []
    for i, (label, over) in enumerate(configs):
        r = {n: results[i * len(names) + j] for j, n in enumerate(names)}
        show(label, r); out.append((label, r))
    return out

def paired(a, b, n=2000, seed=1):
    """Mean of b - a and the 95 % paired-bootstrap interval."""
    rng = random.Random(seed)
    d = [y - x for x, y in zip(a, b)]
    means = sorted(sum(d[rng.randrange(len(d))] for _ in d) / len(d) for _ in range(n))
    return sum(d) / len(d), means[int(0.025 * n)], means[int(0.975 * n)]

def proximity(p, ix, clauses, ranked, scores, depth=100, window=5):
    """BM25TP over the best `depth`: pairs of distinct query stem classes within `window`."""
    N = ix.N
    classes = {}
    for ci, units in enumerate(clauses):
        for ts, _ in units:
            for t in ts:
                classes[t[1:] if t.startswith('\x01') else t] = ci
    idfs = [idf(p, N, max(ix.df.get(t, 0) for ts, _ in units for t in ts)) for units in clauses]
    avgD = ix.avg[0] + ix.avg[1]
    out = dict(scores)
    for d in ranked[:depth]:
        acc = collections.defaultdict(float)
        for seq in ix.toks[d]:
            hits = []
            for pos, t in enumerate(seq):
                c = classes.get(t)
                if c is None: c = classes.get(stemclass(t))
                if c is not None: hits.append((pos, c))
            for a in range(len(hits)):
                for b_ in range(a + 1, len(hits)):
                    dist = hits[b_][0] - hits[a][0]
                    if dist > window: break
                    if hits[a][1] != hits[b_][1]:
                        key = (min(hits[a][1], hits[b_][1]), max(hits[a][1], hits[b_][1]))
                        acc[key] += 1.0 / (dist * dist)
        D = ix.lens[d][0] + ix.lens[d][1]
        K = p['k1'] * (1 - p['b'] + p['b'] * D / avgD)
        out[d] = scores[d] + p['prox'] * sum(min(idfs[i], idfs[j]) * (p['k1'] + 1) * v / (v + K) for (i, j), v in acc.items())
    return out

if __name__ == '__main__':
    sweep([('default', {})])
