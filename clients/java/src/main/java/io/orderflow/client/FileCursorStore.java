package io.orderflow.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A checkpoint in a file: the cursor on the first line, the handled ids after it. Written to a sibling file and
 * moved over the old one, so a crash leaves the old checkpoint or the new one, never half of one.
 */
public final class FileCursorStore implements CursorStore {

    private final Path file;

    public FileCursorStore(Path file) {
        this.file = file;
    }

    @Override
    public Optional<FeedCheckpoint> load() {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            String after = lines.isEmpty() || lines.get(0).isEmpty() ? null : lines.get(0);
            Set<String> handled = lines.stream().skip(1).filter(l -> !l.isEmpty()).collect(Collectors.toSet());
            return Optional.of(new FeedCheckpoint(after, handled));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void save(FeedCheckpoint checkpoint) {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        String text = (checkpoint.after() == null ? "" : checkpoint.after()) + "\n"
                + String.join("\n", checkpoint.handled());
        try {
            Files.writeString(next, text, StandardCharsets.UTF_8);
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "FileCursorStore[" + file + "]";
    }
}
