"""PaperMap's engine: paper lists in, a topic map out. Importable without Streamlit."""
