#include "panels/console_panel.hpp"

#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace gsr::views {

ConsolePanel::ConsolePanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("consolePanel"));
    view_ = new QPlainTextEdit(this);
    view_->setObjectName(QStringLiteral("consoleText"));
    view_->setReadOnly(true);
    view_->setLineWrapMode(QPlainTextEdit::NoWrap);
    view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    view_->setMaximumBlockCount(5000); // a long session must not grow without bound
    view_->setPlaceholderText(
        tr("The gsr command line of each action you take appears here."));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
}

QString ConsolePanel::text() const { return view_->toPlainText(); }

void ConsolePanel::appendCommand(const QString& line)
{
    commands_ << line;
    view_->appendPlainText(QStringLiteral("$ ") + line);
}

void ConsolePanel::appendNote(const QString& note)
{
    view_->appendPlainText(QStringLiteral("# ") + note);
}

void ConsolePanel::clear()
{
    commands_.clear();
    view_->clear();
}

} // namespace gsr::views
