"""Generated and transcribed datasets: the IBM-Quest-style generator, the papers' toy examples, stand-ins.

* :mod:`corpora.synthetic.quest`: the seeded generator (``synthetic:`` specs, :func:`corpora.generate_quest`);
* :mod:`corpora.synthetic.toy`: the papers' worked examples, transcribed;
* :mod:`corpora.synthetic.shaped`: stand-ins shaped like the papers' KDD Cup 2000 datasets (Terrovitis2012
  Figure 6), cut from kosarak or fitted with the generator.

They are loaded by name through :mod:`corpora.registry`.
"""
