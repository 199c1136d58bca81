"""The shared helpers of the whole workbench: the one place every package takes them from.

They live in ``corpora`` because it is the bottom layer (``corpora <- anonymizer <- attacks <-
experiments``), and they import nothing else of ours, so any package can use them:

* :mod:`corpora.common.errors`: :class:`~corpora.common.errors.InputError` (a user's mistake, one
  line), the argparse parser that raises it, and :func:`~corpora.common.errors.run_cli`, the one
  policy for errors (exit 2), interrupts (130) and SIGTERM (143);
* :mod:`corpora.common.cli`: the one command-line dispatcher (command modules, ``--version``);
* :mod:`corpora.common.files`: atomic output, output-path checks, bounded reading of untrusted input;
* :mod:`corpora.common.cachefile`: cache files written under unpredictable temporary names;
* :mod:`corpora.common.bounds`: range-checked integer options and checked addresses;
* :mod:`corpora.common.messages`: short renderings of user values for error lines;
* :mod:`corpora.common.seeds`: the secret seed of a release and the generators drawn from it;
* :mod:`corpora.common.gcpause`: pausing the cyclic garbage collector while millions of objects are built.
"""
