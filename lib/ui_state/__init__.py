"""The dashboard's Streamlit side: the only part of lib/ that imports Streamlit.

Cached wrappers over the pipeline, the view every page draws from, and widgets whose state lives
in the URL, one module per concern. Pages use them as `ui_state.<name>`.
"""
from .core import (  # noqa: F401
    STAGE_DESCRIPTIONS,
    DataSource,
    View,
    load_map,
    read_map,
    set_view,
    current_view,
    url_multiselect,
    url_select,
    url_text,
    write_url,
    KEYWORD_OPTIONS,
    sidebar_filters,
    PAPER_COLUMN_CONFIG,
    TOPIC_COLUMN_CONFIG,
    table_height,
    topic_summaries,
)
from .map_view import (  # noqa: F401
    LABEL_CHOICES,
    label_column,
    colour_choices,
    MapSelection,
    map_selection,
    PAPER_KEY,
    url_paper,
    open_paper,
    paper_card,
    text_matches,
    similar_to_text,
    similar_papers,
    search_in_view,
    similar_in_view,
    url_paper_choice,
    map_hover,
    TABLE_ROWS,
    paper_list,
)
from .data_sets import (  # noqa: F401
    FETCH_TIMEOUT,
    DATA_SET_COLUMN_CONFIG,
    data_catalog,
    cache_folder,
    chosen_source,
    opened_data_set,
    open_data_set,
    saved_upload,
    fetch_icml2025,
)
from .reading import (  # noqa: F401
    NEW_LIST,
    LIST_KEY,
    reading_lists_path,
    reading_lists_db,
    read_lists,
    change_lists,
    show_list_error,
    list_choice,
    add_to_list_control,
    STEP_KEY,
    presentation_style,
    url_step,
    go_to_step,
)
from .breakdown_links import (  # noqa: F401
    topic_breakdown,
    open_map,
    apply_map_link,
    map_button,
    KEYWORD_COLUMN_CONFIG,
)
