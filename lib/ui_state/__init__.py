"""The dashboard's Streamlit side: the only part of lib/ that imports Streamlit.

One module per concern: `source` (the map of the chosen data set, built and read), `view` (what
every page draws from), `url_widgets` (widgets kept in the URL), `sidebar` (the facet filters),
`table_config` (how tables look), `map_view`, `map_chart` (the map page's chart), `data_sets`, `reading` (reading lists),
`presenting` (presentation mode), `list_editing` (the reading-lists page's edits), `members`
(who may edit, and the member's name), `profile`
(papers for me) and `breakdown_links`. Pages use them as `ui_state.<name>`.
"""

from .breakdown_links import (  # noqa: F401
    KEYWORD_COLUMN_CONFIG,
    apply_map_link,
    clickable_chart,
    map_button,
    open_map,
    topic_breakdown,
    topic_summaries,
)
from .data_sets import (  # noqa: F401
    DATA_SET_COLUMN_CONFIG,
    FETCH_TIMEOUT,
    FETCHABLE,
    REPORT_LINES,
    cache_folder,
    chosen_source,
    conference_label,
    data_catalog,
    data_set_choice,
    fetch_conference_list,
    load_report,
    may_open,
    offer_data_set,
    open_data_set,
    opened_data_set,
    saved_upload,
)
from .list_editing import (  # noqa: F401
    NEW_LIST_NAME_KEY,
    action_row,
    create_typed_list,
    deleted_lists_expander,
    list_table,
    rename_key,
    rename_to_typed,
    sort_control,
)
from .map_chart import FULLSCREEN, clicked_paper, drawn_selection, figure_revision, map_chart  # noqa: F401
from .map_view import (  # noqa: F401
    LABEL_CHOICES,
    MAP_FRAME_KEY,
    MAP_HEIGHT_HINT,
    MAP_NOTE_KEY,
    MAP_TITLE_KEY,
    MAP_WIDTH_HINT,
    PAPER_KEY,
    TABLE_ROWS,
    colour_choices,
    label_column,
    map_colours,
    map_hover,
    map_page_style,
    map_points,
    map_regions,
    more_like_list,
    open_paper,
    paper_buttons,
    paper_card,
    paper_list,
    paper_list_on_demand,
    scroll_to_top_on_new_paper,
    search_example,
    search_in_view,
    similar_in_view,
    similar_papers,
    similar_to_text,
    text_matches,
    url_paper,
    url_paper_choice,
)
from .members import (  # noqa: F401
    MEMBER_NAME_KEY,
    may_edit,
    member_access,
    member_name,
    member_name_box,
    refusal,
    unchosen_address,
)
from .presenting import (  # noqa: F401
    SLIDE_MAP_KEY,
    SLIDE_RING_KEY,
    STEP_KEY,
    go_to_step,
    move_step,
    new_presses,
    presentation_style,
    presented_step,
    slide_map,
    slide_ring,
    step_keys,
)
from .profile import (  # noqa: F401
    MAX_PROFILE_FILE_MB,
    PROFILE_COLUMN_CONFIG,
    PROFILE_FILE_TYPES,
    keep_profile,
    kept_profile,
    papers_for_me,
    save_ranking_control,
)
from .reading import (  # noqa: F401
    LIST_KEY,
    NEW_LIST,
    add_to_list_control,
    add_to_this_list,
    change_lists,
    list_choice,
    move_on,
    plan_paper_ids,
    read_lists,
    reading_lists_db,
    reading_lists_path,
    show_list_error,
)
from .sidebar import KEYWORD_OPTIONS, sidebar_filters  # noqa: F401
from .source import STAGE_DESCRIPTIONS, DataSource, load_map, read_map  # noqa: F401
from .table_config import (  # noqa: F401
    AGREEMENT_COLUMN_CONFIG,
    PAPER_COLUMN_CONFIG,
    SESSION_COLUMN_CONFIG,
    TOPIC_COLUMN_CONFIG,
    table_height,
)
from .url_widgets import arrived, note_page, url_multiselect, url_select, url_text, write_url  # noqa: F401
from .view import View, current_view, set_view  # noqa: F401
