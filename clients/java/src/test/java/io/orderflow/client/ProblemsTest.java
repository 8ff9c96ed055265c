package io.orderflow.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProblemsTest {

    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void shouldKeepTheTypeSpecificMembersBesideTheStandardOnes() {
        ProblemException e = Problems.exception("payOrder", Problems.read(409, "{\"type\":\""
                + ProblemTypes.ILLEGAL_TRANSITION + "\",\"title\":\"Illegal transition\",\"status\":409,\"detail\":"
                + "\"PAY is not allowed in CANCELLED\",\"currentStatus\":\"CANCELLED\",\"allowedEvents\":[]}", mapper),
                "k-1", 1);
        assertEquals(ProblemTypes.ILLEGAL_TRANSITION, e.type());
        assertEquals("Illegal transition", e.title());
        assertEquals(409, e.status());
        assertEquals("PAY is not allowed in CANCELLED", e.detail());
        assertEquals(Map.of("currentStatus", "CANCELLED", "allowedEvents", List.of()), e.members());
        assertEquals("k-1", e.idempotencyKey());
    }

    @Test
    void shouldReportAnExpiredFeedCursorAsItsOwnException() {
        ProblemException e = Problems.exception("listEvents", Problems.read(410, "{\"type\":\""
                + ProblemTypes.FEED_CURSOR_EXPIRED + "\",\"title\":\"Gone\",\"status\":410,\"oldestCursor\":\"42\"}",
                mapper), null, 1);
        assertTrue(e instanceof FeedCursorExpiredException);
        assertEquals("42", ((FeedCursorExpiredException) e).oldestCursor());
    }

    @Test
    void shouldTurnAnAnswerThatIsNoProblemIntoAboutBlank() {
        ProblemException empty = Problems.exception("createOrder", Problems.read(400, "", mapper), "k", 1);
        assertEquals(ProblemTypes.ABOUT_BLANK, empty.type());
        assertEquals(400, empty.status());
        assertNull(empty.detail());
        ProblemException page = Problems.exception("createOrder", Problems.read(502, "<html>Bad Gateway</html>",
                mapper), "k", 1);
        assertEquals(ProblemTypes.ABOUT_BLANK, page.type());
        assertEquals("<html>Bad Gateway</html>", page.detail());
    }
}
