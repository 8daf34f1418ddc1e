package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The test parser is strict: what the {@code --json} tests accept is JSON, and nothing else passes. */
class JsonParserTest {
    @Test
    void readsJson() {
        assertEquals(
                Map.of("a", 1L, "b", List.of(true, false, "x\n\u2028\ud83d\ude00"), "c", -2.5e3),
                JsonParser.parse(" {\"a\":1,\"b\":[true,false,\"x\\n\\u2028\\ud83d\\ude00\"],\"c\":-2.5e3}\n"));
        assertEquals(JsonParser.NULL, JsonParser.parseObject("{\"n\":null}").get("n"));
        assertEquals(List.of(), JsonParser.parse("[]"));
    }

    @Test
    void refusesWhatIsNotJson() {
        for (final String text : List.of(
                "",
                "{",
                "{}{}",
                "{} x",
                "{\"a\":1,}",
                "[1,]",
                "{'a':1}",
                "{a:1}",
                "{\"a\":01}",
                "{\"a\":1.}",
                "{\"a\":-}",
                "{\"a\":NaN}",
                "{\"a\":\"tab\tin string\"}",
                "{\"a\":\"\\x41\"}",
                "{\"a\":\"\\u12\"}",
                "{\"a\":\"\\udc00\"}",
                "{\"a\":\"\\ud800x\"}",
                "{\"a\":\"open}",
                "{\"a\":1,\"a\":2}",
                "{\"a\":tru}",
                "{\"a\" 1}")) {
            assertThrows(IllegalArgumentException.class, () -> JsonParser.parse(text), text);
        }
    }
}
