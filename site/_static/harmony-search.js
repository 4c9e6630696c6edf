/* harmony site: how search ranks its results (Sphinx's html_search_scorer).
   Sphinx's default weights, plus these rules for this site:
   - an object (row, cell, term, example) named exactly as the query comes first;
   - a clause cell (an object named id@SRC) ranks low unless the query names a cell
     (has an "@"), so a rule word lists the rows, not every rulebook's cell of them;
   - the topic pages, where the rules are, rank above the worked examples and the
     revision pages, which repeat the rules' words. */
var Scorer = {
  score: function (result) {
    var docname = result[0], title = result[1], score = result[4], kind = result[6];
    var query = "";
    try { query = (new URLSearchParams(window.location.search).get("q") || "").toLowerCase(); }
    catch (e) { query = ""; }
    if (kind === "object") {
      if (title.toLowerCase() === query.trim()) { return score + 40; }   /* the very id or term */
      if (title.indexOf("@") >= 0 && query.indexOf("@") < 0) { return score - 20; }
      return score + 10;
    }
    if (docname.indexOf("topics/") === 0 || docname === "glossary") { return score + 8; }
    if (docname.indexOf("examples/") === 0) { return score - 4; }
    return score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2
};
