"""Schedule: the conference's days, their sessions (time, room) and each session's papers, filtered
like every page; my plan (a reading list) on the schedule, its conflicts, and its calendar file."""

import streamlit as st

from lib import ui_state
from lib.store import reading_lists
from lib.views import breakdowns, exports, plan_exports, schedule
from lib.views.map.links import map_filters
from lib.views.markup import markdown_literal
from lib.views.tables import corpus_caption

view = ui_state.current_view()
papers, shown = view.papers, view.shown
ui_state.show_list_error()

if not schedule.has_sessions(papers):
    st.info("This paper list has no sessions: the schedule shows for conferences fetched with their programme.")
    st.stop()

zone = schedule.conference_zone(papers)
sessions = schedule.schedule_sessions(shown, zone)
st.subheader(f"Schedule: {len(shown):,} of {len(papers):,} papers" if len(shown) < len(papers) else "Schedule")
st.caption(markdown_literal(f"{corpus_caption(papers, view.source.name)}; {schedule.zone_caption(zone)}"))

names = ui_state.read_lists(reading_lists.list_names)
plan_column, add_column = st.columns([1, 2], vertical_alignment="bottom")
with plan_column:
    plan_name = ui_state.list_choice(names)
    if plan_name is None:
        st.caption("No plan yet: choose papers and add them to a new list, your plan.")
plan_ids = ui_state.plan_paper_ids(plan_name)
choices = schedule.paper_choices(shown)
with add_column:
    chosen = st.multiselect(
        "Papers to add to a plan",
        list(choices),
        format_func=choices.get,
        key="schedule_papers",
        placeholder="Type part of a title",
    )
ui_state.add_to_list_control(breakdowns.papers_by_id(papers, chosen), key="schedule")

schedule_tab, plan_tab = st.tabs(["Schedule", f"My plan: {plan_name}" if plan_name else "My plan"])
with schedule_tab:
    if not sessions:
        st.info("No paper passing the filters has a session. Clear the filters in the sidebar to see the schedule.")
    days = list(dict.fromkeys(session.day for session in sessions))
    if days:
        day = ui_state.url_select("Day", {d: d for d in days}, key="schedule_day", default=days[0], horizontal=True)
        current = view.filters.to_query()
        for n, session in enumerate(sessions):
            if session.day != day:
                continue
            st.markdown(f"#### {markdown_literal(session.heading)}")
            count, button = st.columns([4, 1], vertical_alignment="center")
            papers_in = len(session.presentations)
            count.caption(f"{papers_in:,} papers" if papers_in != 1 else "1 paper")
            with button:
                ui_state.map_button(
                    "Show on the map",
                    map_filters({"first_session": session.label}, current),
                    key=f"schedule_map_{n}",
                )
            st.dataframe(
                schedule.session_table(session.presentations, plan_ids),
                hide_index=True,
                column_config=ui_state.SESSION_COLUMN_CONFIG,
                height=ui_state.table_height(papers_in, most=12),
                key=f"schedule_session_{n}",
            )

with plan_tab:
    if plan_name is None:
        st.info("No reading lists yet: choose papers above and add them to a new list, your plan.")
        st.stop()
    plan = schedule.plan_presentations(papers, plan_ids)
    if plan.empty:
        st.info("None of this list's papers is presented at this conference. Add papers above.")
        st.stop()
    if warning := schedule.conflict_sentence(plan):
        st.warning(warning)
    st.markdown(schedule.plan_markdown(plan))
    stem = exports.file_stem(plan_name)
    downloads = st.container(horizontal=True)
    downloads.download_button(
        "Download calendar (.ics)",
        plan_exports.plan_ics(plan, plan_name),
        f"{stem}.ics",
        "text/calendar",
        on_click="ignore",
    )
    downloads.download_button(
        "Download printable agenda",
        plan_exports.plan_agenda_html(plan, plan_name, corpus_caption(papers, view.source.name)),
        f"{stem}-agenda.html",
        "text/html",
        on_click="ignore",
    )
