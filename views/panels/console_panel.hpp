#pragma once
// The Console dock: the `gsr` command line of each GUI action (panels/cli_equivalent.hpp), in
// the order the actions happened, ready to copy into a terminal or a script.
#include <QStringList>
#include <QWidget>

class QPlainTextEdit;

namespace gsr::views {

class ConsolePanel : public QWidget {
    Q_OBJECT

public:
    explicit ConsolePanel(QWidget* parent = nullptr);

    /// The command lines logged so far, oldest first (without the "$ " prompt).
    QStringList commands() const { return commands_; }
    /// Everything shown, notes included.
    QString text() const;

public slots:
    /// Logs a command line.
    void appendCommand(const QString& line);
    /// Logs a note as a shell comment ("# ..."), e.g. the run id a training got.
    void appendNote(const QString& note);
    void clear();

private:
    QPlainTextEdit* view_ = nullptr;
    QStringList commands_;
};

} // namespace gsr::views
