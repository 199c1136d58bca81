import pytest

from corpora.common.errors import InputError
from corpora.synthetic.toy import TOY_DATASETS, toy_dataset, toy_records


def test_names():
    assert TOY_DATASETS == ("terrovitis2012-fig2", "alshuhail2021-table3.2",
                            "alshuhail2021-table3.4", "alshuhail2021-table4.2")


def test_terrovitis_fig2():
    ds = toy_dataset("terrovitis2012-fig2")
    assert len(ds) == 10
    assert ds[1] == {"madonna", "flu", "viagra", "ruby", "audi a4", "sony tv"}  # r_2
    assert ds[9] == {"iphone sdk", "digital camera", "madonna", "ikea", "ruby"}  # r_10
    assert ds.lengths.tolist() == [5, 6, 5, 3, 5, 4, 4, 4, 3, 5]
    assert "audi a4" in ds.vocabulary and "panic disorder" in ds.vocabulary
    assert ds.supports()["madonna"] == 8
    assert ds.name == "terrovitis2012-fig2"


def test_alshuhail_table32():
    ds = toy_dataset("alshuhail2021-table3.2")
    assert len(ds) == 4
    assert ds[2] == {"cancer", "blood", "treatment", "tumor", "biopsy"}
    assert ds[3] == {"vessel", "blood", "treatment", "lung", "catheterisation"}


def test_alshuhail_table34():
    ds = toy_dataset("alshuhail2021-table3.4")
    assert len(ds) == 4
    assert ds[0] == {"kidney", "infection", "failure", "sepsis"}
    assert ds[3] == {"infection", "failure", "dialysis"}
    assert ds.stats().distinct_terms == 7


def test_alshuhail_table42():
    ds = toy_dataset("alshuhail2021-table4.2")
    assert len(ds) == 4
    assert ds[0] == {"vessel", "blood", "treatment", "lung", "catheterisation"}
    assert ds[1] == {"cancer", "radiotherapy", "lung", "treatment"}
    # Table 4.2 holds the same transactions as Table 3.2, in another order
    assert sorted(map(sorted, ds)) == sorted(map(sorted, toy_dataset("alshuhail2021-table3.2")))


def test_records_keep_paper_order():
    assert toy_records("alshuhail2021-table3.4")[1] == ["kidney", "surgery", "catheterisation"]


def test_unknown_name():
    with pytest.raises(InputError, match="terrovitis2012-fig2"):
        toy_dataset("nope")
