"""The map: its figure and the parts it is built from (traces, ranges, colours, regions, labels, hover),
the points the map page's chart holds, its script in the browser, and what a click on it links to."""
