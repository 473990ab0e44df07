package dev.dedup.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The series selectors of a PromQL expression, enough to check that the metrics and labels an alert or a
 * dashboard names exist: {@code name{label op "value", ...}}. Functions, aggregations and their
 * {@code by (...)} clauses, ranges, numbers and Grafana's {@code $variables} are skipped.
 */
final class PromQl {

    record Matcher(String label, String op, String value) {}

    record Selector(String metric, List<Matcher> matchers) {}

    private static final Set<String> KEYWORDS = Set.of(
            "sum",
            "min",
            "max",
            "avg",
            "count",
            "stddev",
            "stdvar",
            "topk",
            "bottomk",
            "quantile",
            "count_values",
            "group",
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "and",
            "or",
            "unless",
            "offset",
            "bool",
            "inf",
            "nan");
    private static final Set<String> GROUPING = Set.of("by", "without", "on", "ignoring", "group_left", "group_right");

    private PromQl() {}

    static List<Selector> selectors(String expr) {
        List<Selector> out = new ArrayList<>();
        int i = 0;
        int n = expr.length();
        while (i < n) {
            char c = expr.charAt(i);
            if (c == '"' || c == '\'') {
                i = expr.indexOf(c, i + 1) + 1;
            } else if (c == '[') {
                i = expr.indexOf(']', i) + 1;
            } else if (c == '$') {
                i++;
                while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '_')) {
                    i++;
                }
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(expr.charAt(i + 1)))) {
                while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '.')) {
                    i++;
                }
            } else if (Character.isLetter(c) || c == '_' || c == ':') {
                int start = i;
                while (i < n
                        && (Character.isLetterOrDigit(expr.charAt(i))
                                || expr.charAt(i) == '_'
                                || expr.charAt(i) == ':')) {
                    i++;
                }
                String word = expr.substring(start, i);
                int j = i;
                while (j < n && Character.isWhitespace(expr.charAt(j))) {
                    j++;
                }
                boolean call = j < n && expr.charAt(j) == '(';
                if (GROUPING.contains(word)) {
                    if (call) {
                        i = expr.indexOf(')', j) + 1;
                    }
                } else if (KEYWORDS.contains(word) || call) {
                    // an aggregation or function: its arguments are read on
                } else {
                    List<Matcher> matchers = new ArrayList<>();
                    if (j < n && expr.charAt(j) == '{') {
                        int end = expr.indexOf('}', j);
                        for (String m : expr.substring(j + 1, end).split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
                            java.util.regex.Matcher mm = java.util.regex.Pattern.compile(
                                            "\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"(.*)\"\\s*")
                                    .matcher(m);
                            if (mm.matches()) {
                                matchers.add(new Matcher(mm.group(1), mm.group(2), mm.group(3)));
                            } else if (!m.isBlank()) {
                                throw new IllegalArgumentException("cannot read matcher '" + m + "' in " + expr);
                            }
                        }
                        i = end + 1;
                    }
                    out.add(new Selector(word, matchers));
                }
            } else {
                i++;
            }
        }
        return out;
    }
}
