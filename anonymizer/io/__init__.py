"""Reading and writing releases and truth files (JSON and parquet); depends on the model, never the reverse."""
